"""Bearer tokens to principals, with a short cache so a recall does not pay a KV read."""

from __future__ import annotations

import time

from memhive_domain.errors import DomainError
from memhive_domain.principals import Principal
from memhive_ports import TokenDirectory

CACHE_TTL_S = 30.0
CACHE_MAX = 10_000


class Unauthenticated(DomainError):
    """No token, or a token memhive does not know."""


class Authenticator:
    def __init__(self, tokens: TokenDirectory, ttl_s: float = CACHE_TTL_S) -> None:
        self._tokens, self._ttl = tokens, ttl_s
        self._cache: dict[str, tuple[float, Principal]] = {}

    async def principal_for(self, authorization: str | None) -> Principal:
        token = _bearer(authorization)
        cached = self._cache.get(token)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        principal = await self._tokens.resolve(token)
        if principal is None:
            raise Unauthenticated("unknown token: use a token issued by `memhive token create`")
        if len(self._cache) >= CACHE_MAX:
            self._cache.clear()
        self._cache[token] = (time.monotonic() + self._ttl, principal)
        return principal


def _bearer(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("missing bearer token: send 'Authorization: Bearer <token>'")
    return token.strip()
