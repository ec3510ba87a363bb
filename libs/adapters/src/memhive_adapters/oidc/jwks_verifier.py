"""IdentityVerifier for OIDC: a JWT bearer verified with PyJWT against the provider's JWKS.

PyJWKClient fetches and caches the key set (bounded timeout, `jwks_cache_s`); a token with
an unknown `kid` (the provider rotated its keys) refetches it, at most once per
`jwks_min_refresh_s`, so forged kids cannot turn every request into a fetch. The fetch is
blocking urllib, so it runs in a worker thread.

The algorithm is pinned to the key: only RS256/ES256 (as configured) and only the one the
JWKS key is for, so `alg: none` and HS256 signed with the public key are refused.

Without `jwks_url` the key set's address comes from the provider's discovery document on
first use (`discovery.py`; the process's one instance when given, its own otherwise). An
id_token from the dashboard's sign-in is verified with its `nonce`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Protocol

import jwt
from memhive_domain.principals import (
    ROOT_HOME,
    Principal,
    Role,
    is_valid_user_id,
    is_valid_workspace_id,
)
from memhive_domain.scopes import parse_scope_path
from memhive_ports import ProviderEndpoints, ProviderUnavailable, SignInRejected
from memhive_settings import OidcSettings

from memhive_adapters.oidc.discovery import OidcDiscovery


class Discovery(Protocol):
    async def endpoints(self) -> ProviderEndpoints: ...


class JwksVerifier:
    def __init__(self, settings: OidcSettings, discovery: Discovery | None = None) -> None:
        if not (settings.issuer and settings.audience):
            raise ValueError("OIDC needs MEMHIVE_OIDC__ISSUER and __AUDIENCE")
        self._settings = settings
        self._discovery = None if settings.jwks_url else discovery or OidcDiscovery(settings)
        self._jwks: jwt.PyJWKClient | None = None
        self._last_refresh = float("-inf")
        self._refreshing = asyncio.Lock()

    def claims_to_be(self, credential: str) -> bool:
        return credential.startswith("eyJ") and credential.count(".") == 2

    async def verify(self, credential: str, *, nonce: str | None = None) -> Principal:
        try:
            header = jwt.get_unverified_header(credential)
        except jwt.InvalidTokenError:
            raise SignInRejected("not a well-formed JWT") from None
        algorithm = header.get("alg")
        if algorithm not in self._settings.algorithms:
            raise SignInRejected(f"algorithm {algorithm!r} is not accepted")
        key = await self._key(header.get("kid"))
        if key.algorithm_name != algorithm:
            raise SignInRejected(f"key {key.key_id!r} is not a {algorithm} key")
        claims = self._claims(credential, key, algorithm)
        if nonce is not None and not _same(claims.get("nonce"), nonce):
            raise SignInRejected("the token's nonce is not the one this sign-in sent")
        return self._principal(claims)

    async def _key(self, kid: str | None) -> jwt.PyJWK:
        if not kid:
            raise SignInRejected("the token names no key (kid)")
        key = await self._find(kid, refresh=False)
        if key is None:
            async with self._refreshing:
                if time.monotonic() - self._last_refresh >= self._settings.jwks_min_refresh_s:
                    self._last_refresh = time.monotonic()
                    key = await self._find(kid, refresh=True)
        if key is None:
            raise SignInRejected(f"no key {kid!r} in the identity provider's key set")
        return key

    async def _find(self, kid: str, *, refresh: bool) -> jwt.PyJWK | None:
        jwks = await self._client()
        try:
            keys = await asyncio.to_thread(jwks.get_signing_keys, refresh)
        except jwt.PyJWKClientError as exc:
            raise SignInRejected(f"the identity provider's keys are unavailable ({exc})") from None
        return jwks.match_kid(keys, kid)

    async def _client(self) -> jwt.PyJWKClient:
        if self._jwks is None:
            s = self._settings
            url = s.jwks_url
            if url is None and self._discovery is not None:
                try:
                    url = (await self._discovery.endpoints()).jwks_uri
                except ProviderUnavailable as exc:
                    message = f"the identity provider's keys are unavailable ({exc})"
                    raise SignInRejected(message) from None
            self._jwks = jwt.PyJWKClient(
                url or "", cache_jwk_set=True, lifespan=s.jwks_cache_s, timeout=s.jwks_timeout_s
            )
        return self._jwks

    def _claims(self, credential: str, key: jwt.PyJWK, algorithm: str) -> dict:
        s = self._settings
        try:
            return jwt.decode(
                credential,
                key.key,
                algorithms=[algorithm],
                audience=s.audience,
                issuer=s.issuer,
                leeway=s.leeway_s,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise SignInRejected("the token has expired") from None
        except jwt.InvalidAudienceError:
            raise SignInRejected("the token is for another audience") from None
        except jwt.InvalidIssuerError:
            raise SignInRejected("the token is from another issuer") from None
        except jwt.InvalidTokenError as exc:
            raise SignInRejected(str(exc) or "invalid token") from None

    def _principal(self, claims: dict) -> Principal:
        s = self._settings
        workspace = claims.get(s.workspace_claim, s.default_workspace)
        user = claims.get(s.user_claim)
        role = claims.get(s.role_claim, s.default_role)
        home = claims.get(s.home_claim, ROOT_HOME)
        if not isinstance(workspace, str) or not is_valid_workspace_id(workspace):
            raise SignInRejected(f"claim {s.workspace_claim!r} does not name a workspace")
        if not isinstance(user, str) or not is_valid_user_id(user):
            raise SignInRejected(f"claim {s.user_claim!r} is not a user id")
        if role not in tuple(Role):
            raise SignInRejected(f"claim {s.role_claim!r} is not one of {[r.value for r in Role]}")
        node = parse_scope_path(home, []) if isinstance(home, str) else None
        if node is None:
            raise SignInRejected(f"claim {s.home_claim!r} is not a scope-tree node")
        return Principal(workspace, user, Role(role), node.key, credential=f"oidc:{claims['sub']}")


def _same(sent: object, expected: str) -> bool:
    return isinstance(sent, str) and secrets.compare_digest(sent.encode(), expected.encode())
