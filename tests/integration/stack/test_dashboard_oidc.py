"""Signing in to /memory with an OIDC provider (authorization code + PKCE) against a stub
provider on loopback: the happy path lists memories as the person's role; a wrong state, a
wrong nonce, an expired token, another audience, a replayed code, denied consent and a
provider that is down are each refused with a page and a 4xx/503, never a 500."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from memhive_adapters.oidc.jwks_verifier import JwksVerifier
from memhive_adapters.oidc.provider import HttpIdentityProvider
from memhive_contracts.bus_permissions import QUERY
from memhive_query.app import create_app
from memhive_query.dashboard.oidc_flow import OidcSignIn, SignInFailed
from memhive_settings import OidcSettings

from tests.integration.stack.browser import chromium, require_chromium, screenshot
from tests.integration.stack.conftest import Stack, app_running, save, served_on_loopback
from tests.integration.stack.identity_provider import (
    CLIENT_ID,
    Person,
    StubProvider,
    stub_provider,
)

pytestmark = pytest.mark.timeout(120)

PUBLIC = "The staging cluster is rebuilt every Sunday night"
PRIVATE = "The staging root password sits in the team vault"


@pytest.fixture(scope="module")
def idp() -> Iterator[StubProvider]:
    with stub_provider() as provider:
        yield provider


@pytest.fixture(autouse=True)
def _fresh_provider(idp: StubProvider) -> None:
    idp.consent, idp.tweak, idp.token_status, idp.person = True, {}, None, None


def oidc_settings(issuer: str) -> OidcSettings:
    # The tests' address is http://memhive (ASGI) or 127.0.0.1 (the browser's).
    hosts = ["memhive", "127.0.0.1"]
    return OidcSettings(
        issuer=issuer, audience=CLIENT_ID, display_name="Stub IdP", redirect_hosts=hosts
    )


@asynccontextmanager
async def gateway_with_oidc(stack: Stack, issuer: str) -> AsyncIterator[object]:
    """A second gateway app over the stack's bus and lanes, configured for the provider."""
    query = await stack.infra.connect_as(QUERY, name="query-oidc")
    query.settings = stack.infra.settings.model_copy(update={"oidc": oidc_settings(issuer)})
    try:
        app = await create_app(query)
        async with app_running(app):
            yield app
    finally:
        await query.close()


@pytest.fixture(scope="module")
async def oidc_app(stack: Stack, idp: StubProvider) -> AsyncIterator[object]:
    async with gateway_with_oidc(stack, idp.issuer) as app:
        yield app


@pytest.fixture
async def workspace_id(stack: Stack) -> str:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with stack.client(await stack.token(workspace)) as member:
        await save(member, kind="fact", body=PUBLIC, visibility="public")
        await save(member, kind="fact", body=PRIVATE, visibility="private")
    return workspace


def dashboard(app: object) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://memhive")


async def to_provider(client: httpx.AsyncClient) -> str:
    """Click "Sign in with ...": the provider's authorize address, login cookie kept."""
    page = await client.get("/memory/sign-in")
    assert 'href="/memory/oidc/login">Sign in with Stub IdP' in page.text
    response = await client.get("/memory/oidc/login")
    assert response.status_code == 303, response.text
    return response.headers["location"]


async def back_from_provider(authorize_url: str) -> str:
    """The provider's redirect back: the callback path and query the browser would open."""
    async with httpx.AsyncClient() as browser:
        response = await browser.get(authorize_url)
    assert response.status_code == 302
    back = urlsplit(response.headers["location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == "http://memhive/memory/oidc/callback"
    return f"{back.path}?{back.query}"


async def sign_in(client: httpx.AsyncClient) -> httpx.Response:
    return await client.get(await back_from_provider(await to_provider(client)))


async def test_a_member_signs_in_and_sees_the_workspace(
    oidc_app: object, idp: StubProvider, workspace_id: str
) -> None:
    idp.person = Person("ada", workspace_id, "member")
    async with dashboard(oidc_app) as client:
        authorize_url = await to_provider(client)
        sent = {k: v[0] for k, v in parse_qs(urlsplit(authorize_url).query).items()}
        assert sent["code_challenge_method"] == "S256" and len(sent["code_challenge"]) == 43
        assert sent["scope"] == "openid profile email"
        assert sent["redirect_uri"] == "http://memhive/memory/oidc/callback"
        login_cookie = client.cookies.jar
        (cookie,) = [c for c in login_cookie if c.name == "memhive_oidc_login"]
        assert cookie.path == "/memory/oidc" and sent["state"] not in cookie.value

        answer = await client.get(await back_from_provider(authorize_url))
        assert answer.status_code == 200, answer.text
        assert 'http-equiv="refresh" content="0; url=/memory"' in answer.text
        session = answer.headers.get_list("set-cookie")
        assert any(
            c.startswith("memhive_session=eyJ") and "HttpOnly" in c and "SameSite=strict" in c
            for c in session
        )
        assert any(c.startswith("memhive_oidc_login=") and "Max-Age=0" in c for c in session)

        index = await client.get("/memory")
        assert index.status_code == 200
        assert "ada · " + workspace_id + " · member" in index.text
        assert PUBLIC in index.text and PRIVATE in index.text

        csrf = re.search(r'name="csrf_token" value="([^"]+)"', index.text).group(1)
        signed_out = await client.post("/memory/sign-out", data={"csrf_token": csrf})
        assert signed_out.status_code == 303
        assert (await client.get("/memory")).headers["location"] == "/memory/sign-in"


async def test_a_viewer_signs_in_and_sees_public_memories_only(
    oidc_app: object, idp: StubProvider, workspace_id: str
) -> None:
    idp.person = Person("grace", workspace_id, "viewer")
    async with dashboard(oidc_app) as client:
        assert (await sign_in(client)).status_code == 200
        index = await client.get("/memory")
        assert "public view" in index.text
        assert PUBLIC in index.text and PRIVATE not in index.text


async def test_an_answer_for_another_sign_in_is_refused(
    oidc_app: object, idp: StubProvider, workspace_id: str
) -> None:
    idp.person = Person("ada", workspace_id, "member")
    async with dashboard(oidc_app) as client:
        back = await back_from_provider(await to_provider(client))
        forged = back.replace("state=", "state=x")
        answer = await client.get(forged)
        assert answer.status_code == 400
        assert "not for the sign-in this browser started" in answer.text
        assert "memhive_session" not in client.cookies
        # The login cookie went with that answer: the right one no longer works either.
        assert (await client.get(back)).status_code == 400
    async with dashboard(oidc_app) as victim, dashboard(oidc_app) as attacker:
        # An answer to the attacker's sign-in, opened in a browser that started none.
        back = await back_from_provider(await to_provider(attacker))
        answer = await victim.get(back)
        assert answer.status_code == 400 and "expired or was already used" in answer.text
        assert "memhive_session" not in victim.cookies


@pytest.mark.parametrize(
    ("tweak", "reason"),
    [
        ({"nonce": "someone-elses-nonce"}, "nonce is not the one this sign-in sent"),
        ({"exp": datetime.now(UTC) - timedelta(minutes=10)}, "has expired"),
        ({"aud": "another-client"}, "another audience"),
        ({"iss": "http://127.0.0.1:9/"}, "another issuer"),
    ],
)
async def test_an_unacceptable_id_token_is_refused(
    oidc_app: object, idp: StubProvider, workspace_id: str, tweak: dict, reason: str
) -> None:
    idp.person, idp.tweak = Person("ada", workspace_id, "member"), tweak
    async with dashboard(oidc_app) as client:
        answer = await sign_in(client)
        assert answer.status_code == 401
        assert "Sign-in failed" in answer.text and reason in answer.text
        assert "memhive_session" not in client.cookies
        assert (await client.get("/memory")).status_code == 303


async def test_a_code_works_once(oidc_app: object, idp: StubProvider, workspace_id: str) -> None:
    idp.person = Person("ada", workspace_id, "member")
    async with dashboard(oidc_app) as first, dashboard(oidc_app) as second:
        back = await back_from_provider(await to_provider(first))
        assert (await first.get(back)).status_code == 200
        # Another browser replays the code with its own fresh login (and its state).
        authorize_url = await to_provider(second)
        state = parse_qs(urlsplit(authorize_url).query)["state"][0]
        code = parse_qs(urlsplit(back).query)["code"][0]
        replay = await second.get("/memory/oidc/callback", params={"code": code, "state": state})
        assert replay.status_code == 400
        assert "refused the code (invalid_grant)" in replay.text
        assert "memhive_session" not in second.cookies


async def test_denied_consent_and_a_provider_that_is_down(
    oidc_app: object, idp: StubProvider, workspace_id: str
) -> None:
    idp.person, idp.consent = Person("ada", workspace_id, "member"), False
    async with dashboard(oidc_app) as client:
        answer = await sign_in(client)
        assert answer.status_code == 403
        assert "did not sign you in (access_denied)" in answer.text
    idp.consent, idp.token_status = True, 503
    async with dashboard(oidc_app) as client:
        answer = await sign_in(client)
        assert answer.status_code == 503
        assert "identity provider is unavailable" in answer.text


async def test_an_unreachable_provider_gives_503() -> None:
    with stub_provider() as gone:
        settings = oidc_settings(gone.issuer).model_copy(update={"provider_timeout_s": 2})
    provider = HttpIdentityProvider(settings)
    sign_in = OidcSignIn(provider, JwksVerifier(settings, provider), settings)
    with pytest.raises(SignInFailed, match="identity provider is unavailable") as failed:
        await sign_in.begin("http://memhive/memory/oidc/callback")
    assert failed.value.status == 503


async def test_a_forged_host_header_never_becomes_the_way_back(oidc_app: object) -> None:
    """Without a configured redirect URL the callback address comes from the request, but
    only for an allowed host: another Host header gets a page, not the provider."""
    async with dashboard(oidc_app) as client:
        for host in ("evil.example", "evil.example:8080", "memhive.evil.example"):
            forged = await client.get("/memory/oidc/login", headers={"Host": host})
            assert forged.status_code == 400, forged.text
            assert "location" not in forged.headers
            assert "MEMHIVE_OIDC__REDIRECT_URL" in forged.text
            kept = [
                c
                for c in forged.headers.get_list("set-cookie")
                if c.startswith("memhive_oidc_login=") and "Max-Age=0" not in c
            ]
            assert kept == []  # no pending sign-in was started
        allowed = await client.get("/memory/oidc/login", headers={"Host": "memhive:8080"})
        assert allowed.status_code == 303
        sent = parse_qs(urlsplit(allowed.headers["location"]).query)
        assert sent["redirect_uri"] == ["http://memhive:8080/memory/oidc/callback"]


async def test_the_token_form_still_works_beside_oidc(
    stack: Stack, oidc_app: object, workspace_id: str
) -> None:
    async with dashboard(oidc_app) as client:
        page = await client.get("/memory/sign-in")
        assert "Sign in with Stub IdP" in page.text and 'name="token"' in page.text
        token = await stack.token(workspace_id)
        form = {"csrf_token": client.cookies["memhive_csrf"], "token": token}
        assert (await client.post("/memory/sign-in", data=form)).status_code == 303
        assert PRIVATE in (await client.get("/memory")).text


async def test_without_oidc_there_is_no_provider_button(stack: Stack) -> None:
    async with dashboard(stack.app) as client:
        page = await client.get("/memory/sign-in")
        assert page.status_code == 200 and "Sign in with" not in page.text
        assert (await client.get("/memory/oidc/login")).status_code == 404
        assert (await client.get("/memory/oidc/callback?code=x&state=y")).status_code == 404


async def test_click_through_in_a_browser(stack: Stack, workspace_id: str) -> None:
    """Chromium clicks "Sign in with ..." and lands on the memories. The provider is named
    `localhost` and the gateway 127.0.0.1: two sites, as in real life, so the login cookie
    must come back on a navigation the provider's page starts (SameSite=Lax), and the Strict
    session cookie is set by a page whose own move to /memory is same-site."""
    require_chromium()
    with stub_provider(host="localhost") as provider:
        provider.person = Person("ada", workspace_id, "member")
        provider.interactive = True
        async with (
            gateway_with_oidc(stack, provider.issuer) as app,
            served_on_loopback(app) as url,
            chromium() as browser,
        ):
            page = await browser.new_page()
            await page.goto(f"{url}/memory")
            assert page.url == f"{url}/memory/sign-in"
            await screenshot(page, "dashboard-sign-in-oidc")
            await page.get_by_role("link", name="Sign in with Stub IdP").click()
            await page.get_by_role("link", name="Allow").click()  # at the provider
            await page.wait_for_url(f"{url}/memory")
            assert provider.authorize_requests[-1]["redirect_uri"] == (
                f"{url}/memory/oidc/callback"
            )
            text = await page.locator("main").inner_text()
            assert PUBLIC in text and PRIVATE in text
            header = await page.locator("header").inner_text()
            assert f"ada · {workspace_id} · member" in header
            await page.get_by_role("button", name="Sign out").click()
            await page.wait_for_url(f"{url}/memory/sign-in")
