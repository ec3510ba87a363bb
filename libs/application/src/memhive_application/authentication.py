"""Bearer credentials to principals: memhive tokens (agents, hooks) and, when configured,
OIDC JWTs (people). The gateway authenticates every request with it; the token responder
authenticates again the credential a token request carries (it trusts no sender).

Token lookups are cached for 30 s so a recall does not pay a KV read, but a revoked or
rotated token must stop working at once on every replica: each gateway watches the token
bucket and drops its cache on any change, and expiry is checked on every request. The
token responder caches nothing (`ttl_s=0`): its requests are rare and must see a revocation.
"""

from __future__ import annotations

from memhive_domain.errors import Unauthenticated
from memhive_domain.principals import Principal
from memhive_domain.tokens import TokenRecord
from memhive_ports import Clock, IdentityVerifier, SignInRejected, TokenDirectory

from memhive_application.watched_cache import WatchedCache

CACHE_TTL_S = 30.0
CACHE_MAX = 10_000

__all__ = ["Authenticator", "Unauthenticated", "bearer_credential"]  # Unauthenticated: domain


class Authenticator:
    def __init__(
        self,
        tokens: TokenDirectory,
        clock: Clock,
        ttl_s: float = CACHE_TTL_S,
        identity: IdentityVerifier | None = None,
    ) -> None:
        self._tokens, self._clock = tokens, clock
        self._identity = identity
        self._cache: WatchedCache[str, TokenRecord | None] = WatchedCache(
            tokens.changes, ttl_s=ttl_s, max_entries=CACHE_MAX, name="token"
        )

    async def start(self) -> None:
        """Follow the token bucket; returns once the watch is in place (or, if the bus
        refuses it, after a few seconds: the gateway still serves, on the TTL)."""
        await self._cache.start()

    async def stop(self) -> None:
        await self._cache.stop()

    async def principal_for(self, authorization: str | None) -> Principal:
        """The principal of an `Authorization` header."""
        return await self.principal_of(bearer_credential(authorization))

    async def principal_of(self, credential: str) -> Principal:
        """The principal of a bare credential (a memhive token or an OIDC JWT)."""
        if not credential:
            raise Unauthenticated("missing credential")
        if self._identity is not None and self._identity.claims_to_be(credential):
            try:
                return await self._identity.verify(credential)
            except SignInRejected as exc:
                raise Unauthenticated(f"sign-in token rejected: {exc}") from None
        record = await self._record(credential)
        if record is None:
            raise Unauthenticated("unknown token: use a token issued by `memhive token create`")
        if not record.live_at(self._clock.now()):
            raise Unauthenticated("this token has expired: ask an admin for a new one")
        return record.principal()

    async def _record(self, token: str) -> TokenRecord | None:
        # A change seen while the lookup was in flight may be this token's revocation, which
        # the lookup may have read too late to see: the cache uses that answer once. An
        # unknown token is not kept: it may be issued in a moment.
        return await self._cache.get(
            token, lambda: self._tokens.lookup(token), keep=lambda found: found is not None
        )


def bearer_credential(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("missing bearer token: send 'Authorization: Bearer <token>'")
    return token.strip()
