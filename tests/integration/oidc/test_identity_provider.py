"""The provider adapter against the loopback stub provider: discovery, the code exchange as a
public and as a confidential client, and each way a provider can fail."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from memhive_adapters.oidc.provider import HttpIdentityProvider
from memhive_ports import CodeRefused, ProviderUnavailable
from memhive_query.dashboard.oidc_flow import s256_challenge
from memhive_settings import OidcSettings

from tests.integration.stack.identity_provider import (
    CLIENT_ID,
    Person,
    StubProvider,
    stub_provider,
)

pytestmark = pytest.mark.timeout(60)
REDIRECT = "https://memhive.test/memory/oidc/callback"
VERIFIER = "v" * 64


@pytest.fixture
def idp() -> Iterator[StubProvider]:
    with stub_provider() as provider:
        provider.person = Person("ada", "acme", "member")
        yield provider


def adapter(issuer: str, **settings) -> HttpIdentityProvider:
    return HttpIdentityProvider(OidcSettings(issuer=issuer, audience=CLIENT_ID, **settings))


async def a_code(idp: StubProvider) -> str:
    endpoint = (await adapter(idp.issuer).endpoints()).authorization_endpoint
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT,
        "state": "s",
        "nonce": "n",
        "code_challenge": s256_challenge(VERIFIER),
        "code_challenge_method": "S256",
    }
    async with httpx.AsyncClient() as browser:
        back = (await browser.get(endpoint, params=query)).headers["location"]
    return parse_qs(urlsplit(back).query)["code"][0]


async def test_discovery_gives_the_endpoints(idp: StubProvider) -> None:
    endpoints = await adapter(idp.issuer).endpoints()
    assert endpoints.token_endpoint == f"{idp.issuer}/token"
    assert endpoints.jwks_uri == f"{idp.issuer}/jwks"


async def test_a_public_client_exchanges_a_code_once(idp: StubProvider) -> None:
    provider = adapter(idp.issuer)
    code = await a_code(idp)
    assert (await provider.exchange_code(code, VERIFIER, REDIRECT)).startswith("eyJ")
    with pytest.raises(CodeRefused, match=r"\(invalid_grant\)$"):  # never the description
        await provider.exchange_code(code, VERIFIER, REDIRECT)


async def test_a_confidential_client_authenticates_with_its_secret(idp: StubProvider) -> None:
    idp.client_secret = "s3cret"
    with pytest.raises(CodeRefused, match="invalid_client"):
        await adapter(idp.issuer).exchange_code(await a_code(idp), VERIFIER, REDIRECT)
    provider = adapter(idp.issuer, client_secret="s3cret")
    assert (await provider.exchange_code(await a_code(idp), VERIFIER, REDIRECT)).startswith("eyJ")


async def test_a_wrong_verifier_is_refused(idp: StubProvider) -> None:
    with pytest.raises(CodeRefused):
        await adapter(idp.issuer).exchange_code(await a_code(idp), "w" * 64, REDIRECT)


async def test_a_provider_that_fails_is_unavailable(idp: StubProvider) -> None:
    idp.discovered_issuer = "https://impostor.test"
    with pytest.raises(ProviderUnavailable, match="names another issuer"):
        await adapter(idp.issuer).endpoints()
    idp.discovered_issuer, idp.token_status = None, 500
    with pytest.raises(ProviderUnavailable, match="answered 500"):
        await adapter(idp.issuer).exchange_code("code", VERIFIER, REDIRECT)
    with stub_provider() as gone:
        issuer = gone.issuer
    with pytest.raises(ProviderUnavailable, match="failed"):
        await adapter(issuer, provider_timeout_s=2).endpoints()
