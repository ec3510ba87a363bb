"""The OIDC login cookie keeps a pending sign-in only as made here, unedited and fresh; the
PKCE challenge is RFC 7636's."""

from __future__ import annotations

import time

import pytest
from fastapi.responses import Response
from memhive_query.dashboard.login_cookie import LOGIN_COOKIE, LoginCookies
from memhive_query.dashboard.oidc_flow import PendingLogin, s256_challenge
from memhive_settings import OidcSettings
from starlette.requests import Request

PENDING = PendingLogin("state-1", "nonce-1", "v" * 64, "https://memhive.test/memory/oidc/callback")


def request(cookie: str | None = None, scheme: str = "https") -> Request:
    headers = [(b"cookie", f"{LOGIN_COOKIE}={cookie}".encode())] if cookie is not None else []
    scope = {"type": "http", "scheme": scheme, "headers": headers, "path": "/", "method": "GET"}
    scope["server"] = ("memhive.test", 443 if scheme == "https" else 80)
    return Request(scope)


def made_by(cookies: LoginCookies, scheme: str = "https") -> tuple[str, str]:
    response = Response()
    cookies.remember(request(scheme=scheme), response, PENDING)
    header = response.headers["set-cookie"]
    return header.split(";")[0].removeprefix(f"{LOGIN_COOKIE}="), header


def test_a_cookie_made_here_gives_back_the_pending_sign_in() -> None:
    cookies = LoginCookies(OidcSettings())
    value, header = made_by(cookies)
    assert cookies.recall(request(value)) == PENDING
    assert "HttpOnly" in header and "SameSite=lax" in header and "Path=/memory/oidc" in header
    assert "Secure" in header and "Max-Age=600" in header
    assert "Secure" not in made_by(cookies, scheme="http")[1]


def test_an_edited_foreign_stale_or_huge_cookie_counts_as_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cookies = LoginCookies(OidcSettings())
    value, _ = made_by(cookies)
    body, signature = value.split(".")
    assert cookies.recall(request(body[:-2] + "xx." + signature)) is None
    last = "1" if signature.endswith("0") else "0"  # an edit, whatever the signature ends with
    assert cookies.recall(request(body + "." + signature[:-1] + last)) is None
    assert cookies.recall(request(body)) is None
    assert cookies.recall(request()) is None
    assert cookies.recall(request("é." + signature)) is None
    assert cookies.recall(request("a" * 5000 + "." + signature)) is None
    assert LoginCookies(OidcSettings()).recall(request(value)) is None  # another process's key
    later = time.time() + 601
    monkeypatch.setattr(time, "time", lambda: later)
    assert cookies.recall(request(value)) is None


def test_replicas_sharing_a_secret_read_each_others_cookies() -> None:
    settings = OidcSettings(cookie_secret="shared-between-replicas")
    value, _ = made_by(LoginCookies(settings))
    assert LoginCookies(settings).recall(request(value)) == PENDING


def test_the_pkce_challenge_is_rfc_7636s() -> None:
    # RFC 7636, appendix B.
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
