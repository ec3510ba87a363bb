"""OIDC discovery: where a provider keeps its keys and endpoints, read from
`<issuer>/.well-known/openid-configuration`.

Fetched on first use and kept `discovery_cache_s`; a failed fetch is not cached, so the
next use tries again; bounded by `provider_timeout_s`. The document must name the
configured issuer (OIDC Discovery 4.3). Both the JWT verifier (every service that checks
people's tokens: the gateway and ingest's token responder) and the dashboard's sign-in
use one instance per process (`oidc/identity.py`).
"""

from __future__ import annotations

import asyncio
import time

import httpx
from memhive_ports import ProviderEndpoints, ProviderUnavailable
from memhive_settings import OidcSettings

DISCOVERY_PATH = "/.well-known/openid-configuration"


class OidcDiscovery:
    def __init__(self, settings: OidcSettings) -> None:
        if not settings.issuer:
            raise ValueError("OIDC discovery needs MEMHIVE_OIDC__ISSUER")
        self._settings = settings
        self._cached: tuple[float, ProviderEndpoints] | None = None
        self._fetching = asyncio.Lock()

    async def endpoints(self) -> ProviderEndpoints:
        async with self._fetching:
            if self._cached is None or self._cached[0] <= time.monotonic():
                endpoints = await self._discover()
                self._cached = (time.monotonic() + self._settings.discovery_cache_s, endpoints)
            return self._cached[1]

    async def _discover(self) -> ProviderEndpoints:
        issuer = self._settings.issuer or ""
        url = issuer.rstrip("/") + DISCOVERY_PATH
        try:
            async with provider_client(self._settings) as client:
                response = await client.get(url)
        except httpx.HTTPError as exc:
            failure = type(exc).__name__
            raise ProviderUnavailable(f"discovery at {url} failed ({failure})") from None
        if response.status_code != 200:
            raise ProviderUnavailable(f"discovery at {url} answered {response.status_code}")
        document = json_object(response)
        fields = ("authorization_endpoint", "token_endpoint", "jwks_uri")
        values = [document.get(name) for name in fields]
        if not all(isinstance(v, str) and v.startswith(("https://", "http://")) for v in values):
            raise ProviderUnavailable(f"discovery at {url} lacks one of {', '.join(fields)}")
        # OIDC Discovery 4.3: the document must be the configured issuer's own.
        if document.get("issuer") != issuer:
            raise ProviderUnavailable(f"discovery at {url} names another issuer")
        return ProviderEndpoints(issuer, *values)


def provider_client(settings: OidcSettings) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=settings.provider_timeout_s, follow_redirects=False)


def json_object(response: httpx.Response) -> dict:
    try:
        document = response.json()
    except ValueError:
        raise ProviderUnavailable(
            "the identity provider answered with something not JSON"
        ) from None
    if not isinstance(document, dict):
        raise ProviderUnavailable("the identity provider did not answer a JSON object")
    return document
