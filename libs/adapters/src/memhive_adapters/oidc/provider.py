"""IdentityProvider over HTTP: the authorization-code exchange, at the endpoints discovery
gives (`discovery.py`). Every call is bounded by `provider_timeout_s`. The client
authenticates with HTTP Basic when it has a secret (client_secret_basic, the spec's default)
and otherwise sends only its id with the PKCE verifier (a public client). Neither the code,
the verifier, the secret nor the tokens are logged or put into error messages.
"""

from __future__ import annotations

import httpx
from memhive_ports import CodeRefused, ProviderEndpoints, ProviderUnavailable
from memhive_settings import OidcSettings

from memhive_adapters.oidc.discovery import OidcDiscovery, json_object, provider_client


class HttpIdentityProvider:
    def __init__(self, settings: OidcSettings, discovery: OidcDiscovery | None = None) -> None:
        if not settings.dashboard_sign_in:
            raise ValueError("OIDC sign-in needs issuer and client_id (or audience)")
        self._settings = settings
        self._discovery = discovery or OidcDiscovery(settings)

    async def endpoints(self) -> ProviderEndpoints:
        return await self._discovery.endpoints()

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
            async with provider_client(s) as client:
                response = await client.post(endpoint, data=form, auth=auth)
        except httpx.HTTPError as exc:
            failure = type(exc).__name__
            raise ProviderUnavailable(f"the token endpoint did not answer ({failure})") from None
        if response.status_code in (400, 401):  # RFC 6749 5.2: invalid_grant and friends
            raise CodeRefused(f"the identity provider refused the code ({_oauth_error(response)})")
        if response.status_code != 200:
            raise ProviderUnavailable(f"the token endpoint answered {response.status_code}")
        id_token = json_object(response).get("id_token")
        if not isinstance(id_token, str):
            raise ProviderUnavailable("the token endpoint's answer has no id_token")
        return id_token


def _oauth_error(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    # Only the error code, a short token from a fixed vocabulary; never the description.
    return error[:64] if isinstance(error, str) and error.isascii() else "no error code"
