"""Signing in to the dashboard with an OIDC provider: the authorization-code flow with PKCE.

`begin` picks a fresh state, nonce and PKCE verifier and gives the provider's authorize
address (the browser keeps the three in the login cookie, `login_cookie.py`); `finish`
checks the provider's answer against them, exchanges the code and verifies the id_token
with the same verifier the API uses, nonce included. The id_token then is the session's
credential, resolved like a pasted token on every request.

Every way it can fail is a SignInFailed carrying the status the page answers with: the
person denied consent (403), the answer is not for this sign-in (400), the code was
refused (400), the token is not acceptable (401), the provider is unreachable (503).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlencode, urlsplit

from memhive_domain.principals import Principal
from memhive_ports import (
    CodeRefused,
    IdentityProvider,
    IdentityVerifier,
    ProviderUnavailable,
    SignInRejected,
)
from memhive_settings import OidcSettings

T = TypeVar("T")
MAX_PARAM_CHARS = 4096  # code and state from the query string; providers' are far shorter


@dataclass(frozen=True, slots=True)
class PendingLogin:
    """What the callback must see again: kept by the browser, signed, for a few minutes."""

    state: str
    nonce: str
    code_verifier: str
    redirect_uri: str


class SignInFailed(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class OidcSignIn:
    def __init__(
        self, provider: IdentityProvider, verifier: IdentityVerifier, settings: OidcSettings
    ) -> None:
        self._provider, self._verifier, self._settings = provider, verifier, settings

    @property
    def display_name(self) -> str:
        return self._settings.display_name or urlsplit(self._settings.issuer or "").hostname or ""

    def redirect_uri(self, origin: str, callback_path: str) -> str:
        return redirect_uri_for(self._settings, origin, callback_path)

    async def begin(self, redirect_uri: str) -> tuple[str, PendingLogin]:
        """The address to send the browser to, and what to remember until it comes back."""
        endpoints = await _reachable(self._provider.endpoints())
        pending = PendingLogin(
            state=secrets.token_urlsafe(32),
            nonce=secrets.token_urlsafe(32),
            code_verifier=secrets.token_urlsafe(64),  # RFC 7636: 43 to 128 characters
            redirect_uri=redirect_uri,
        )
        query = {
            "response_type": "code",
            "client_id": self._settings.dashboard_client_id,
            "redirect_uri": redirect_uri,
            "scope": " ".join(self._settings.scopes),
            "state": pending.state,
            "nonce": pending.nonce,
            "code_challenge": s256_challenge(pending.code_verifier),
            "code_challenge_method": "S256",
        }
        separator = "&" if "?" in endpoints.authorization_endpoint else "?"
        return endpoints.authorization_endpoint + separator + urlencode(query), pending

    async def finish(
        self, pending: PendingLogin | None, answer: Mapping[str, str]
    ) -> tuple[Principal, str]:
        """The principal and the id_token, from the provider's redirect back (its query)."""
        error = answer.get("error")
        if error:
            raise SignInFailed(403, f"The identity provider did not sign you in ({_short(error)}).")
        if pending is None:
            raise SignInFailed(400, "This sign-in expired or was already used: start again.")
        state, code = answer.get("state", ""), answer.get("code", "")
        if not (0 < len(state) <= MAX_PARAM_CHARS and _same(state, pending.state)):
            raise SignInFailed(400, "This answer is not for the sign-in this browser started.")
        if not 0 < len(code) <= MAX_PARAM_CHARS:
            raise SignInFailed(400, "The identity provider sent no authorization code.")
        try:
            id_token = await _reachable(
                self._provider.exchange_code(code, pending.code_verifier, pending.redirect_uri)
            )
        except CodeRefused as exc:
            raise SignInFailed(400, f"{exc}: start again.") from None
        try:
            principal = await self._verifier.verify(id_token, nonce=pending.nonce)
        except SignInRejected as exc:
            message = f"The identity provider's token is not accepted: {exc}."
            raise SignInFailed(401, message) from None
        return principal, id_token


def redirect_uri_for(settings: OidcSettings, origin: str, callback_path: str) -> str:
    """Where the provider sends the browser back: the configured redirect_url, else this
    request's origin if its host is allowed (`redirect_hosts`, any port). A Host header is
    the client's to choose, so an arbitrary one never becomes the way back (with the code)."""
    if settings.redirect_url:
        return settings.redirect_url
    host = urlsplit(origin).hostname or ""
    if host not in settings.redirect_hosts:
        raise SignInFailed(
            400,
            f"This address ({_short(host)}) is not one memhive signs in from: set "
            "MEMHIVE_OIDC__REDIRECT_URL, or add the host to MEMHIVE_OIDC__REDIRECT_HOSTS.",
        )
    return origin.rstrip("/") + callback_path


def s256_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def _reachable(call: Awaitable[T]) -> T:
    try:
        return await call
    except ProviderUnavailable as exc:
        raise SignInFailed(503, f"The identity provider is unavailable: {exc}.") from None


def _same(sent: str, expected: str) -> bool:
    return secrets.compare_digest(sent.encode(), expected.encode())


def _short(error: str) -> str:
    # An OAuth error code (access_denied, ...), shown as text; anything odder is cut short.
    return error[:64] if error.isascii() and error.isprintable() else "an error"
