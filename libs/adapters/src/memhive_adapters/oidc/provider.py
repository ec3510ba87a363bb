"""IdentityProvider over HTTP: OIDC discovery and the authorization-code exchange.

Discovery (`<issuer>/.well-known/openid-configuration`) is fetched on first use and kept
`discovery_cache_s`; a failed fetch is not cached, so the next sign-in tries again. Every
call is bounded by `provider_timeout_s`. The client authenticates with HTTP Basic when it
has a secret (client_secret_basic, the spec's default) and otherwise sends only its id with
the PKCE verifier (a public client). Neither the code, the verifier, the secret nor the
tokens are logged or put into error messages.
"""

from __future__ import annotations

import asyncio
import time

import httpx
from memhive_ports import CodeRefused, ProviderEndpoints, ProviderUnavailable
from memhive_settings import OidcSettings

DISCOVERY_PATH = "/.well-known/openid-configuration"


class HttpIdentityProvider:
    def __init__(self, settings: OidcSettings) -> None:
        if not settings.dashboard_sign_in:
            raise ValueError("OIDC sign-in needs issuer and client_id (or audience)")
        self._settings = settings
        self._cached: tuple[float, ProviderEndpoints] | None = None
        self._fetching = asyncio.Lock()

    async def endpoints(self) -> ProviderEndpoints:
        async with self._fetching:
            if self._cached is None or self._cached[0] <= time.monotonic():
                endpoints = await self._discover()
                self._cached = (time.monotonic() + self._settings.discovery_cache_s, endpoints)
            return self._cached[1]

    async def exchange_code(self, code: str, code_verifier: str, redirect_uri: str) -> str:
        s = self._settings
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        auth = None
        if s.client_secret is not None:
            auth = httpx.BasicAuth(s.dashboard_client_id or "", s.client_secret.get_secret_value())
        else:
            form["client_id"] = s.dashboard_client_id or ""
        endpoint = (await self.endpoints()).token_endpoint
        try:
            async with self._client() as client:
                response = await client.post(endpoint, data=form, auth=auth)
        except httpx.HTTPError as exc:
            failure = type(exc).__name__
            raise ProviderUnavailable(f"the token endpoint did not answer ({failure})") from None
        if response.status_code in (400, 401):  # RFC 6749 5.2: invalid_grant and friends
            raise CodeRefused(f"the identity provider refused the code ({_oauth_error(response)})")
        if response.status_code != 200:
            raise ProviderUnavailable(f"the token endpoint answered {response.status_code}")
        id_token = _json(response).get("id_token")
        if not isinstance(id_token, str):
            raise ProviderUnavailable("the token endpoint's answer has no id_token")
        return id_token

    async def _discover(self) -> ProviderEndpoints:
        issuer = self._settings.issuer or ""
        url = issuer.rstrip("/") + DISCOVERY_PATH
        try:
            async with self._client() as client:
                response = await client.get(url)
        except httpx.HTTPError as exc:
            failure = type(exc).__name__
            raise ProviderUnavailable(f"discovery at {url} failed ({failure})") from None
        if response.status_code != 200:
            raise ProviderUnavailable(f"discovery at {url} answered {response.status_code}")
        document = _json(response)
        fields = ("authorization_endpoint", "token_endpoint", "jwks_uri")
        values = [document.get(name) for name in fields]
        if not all(isinstance(v, str) and v.startswith(("https://", "http://")) for v in values):
            raise ProviderUnavailable(f"discovery at {url} lacks one of {', '.join(fields)}")
        # OIDC Discovery 4.3: the document must be the configured issuer's own.
        if document.get("issuer") != issuer:
            raise ProviderUnavailable(f"discovery at {url} names another issuer")
        return ProviderEndpoints(issuer, *values)

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self._settings.provider_timeout_s, follow_redirects=False)


def _json(response: httpx.Response) -> dict:
    try:
        document = response.json()
    except ValueError:
        raise ProviderUnavailable(
            "the identity provider answered with something not JSON"
        ) from None
    if not isinstance(document, dict):
        raise ProviderUnavailable("the identity provider did not answer a JSON object")
    return document


def _oauth_error(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    # Only the error code, a short token from a fixed vocabulary; never the description.
    return error[:64] if isinstance(error, str) and error.isascii() else "no error code"
