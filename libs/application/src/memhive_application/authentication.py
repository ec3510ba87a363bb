"""Bearer credentials to principals: memhive tokens (agents, hooks) and, when configured,
OIDC JWTs (people). The gateway authenticates every request with it; the token responder
authenticates again the credential a token request carries (it trusts no sender).

Token lookups are cached for 30 s so a recall does not pay a KV read, but a revoked or
rotated token must stop working at once on every replica: each gateway watches the token
bucket and drops its cache on any change, and expiry is checked on every request. The
token responder caches nothing (`ttl_s=0`): its requests are rare and must see a revocation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from memhive_domain.errors import Unauthenticated
from memhive_domain.principals import Principal
from memhive_domain.tokens import TokenRecord
from memhive_ports import Clock, IdentityVerifier, SignInRejected, TokenDirectory

CACHE_TTL_S = 30.0
CACHE_MAX = 10_000
WATCH_RETRY_S = 1.0
WATCH_START_TIMEOUT_S = 5.0

__all__ = ["Authenticator", "Unauthenticated", "bearer_credential"]  # Unauthenticated: domain

log = logging.getLogger(__name__)

STOP_RETRY_S = 0.5  # how long stop() waits for the watch to end before cancelling again


class Authenticator:
    def __init__(
        self,
        tokens: TokenDirectory,
        clock: Clock,
        ttl_s: float = CACHE_TTL_S,
        identity: IdentityVerifier | None = None,
    ) -> None:
        self._tokens, self._clock, self._ttl = tokens, clock, ttl_s
        self._identity = identity
        self._cache: dict[str, tuple[float, TokenRecord]] = {}
        self._changes_seen = 0  # a lookup that overlapped a change is not cached
        self._watch: asyncio.Task | None = None
        self._watching = asyncio.Event()

    async def start(self) -> None:
        """Follow the token bucket; returns once the watch is in place (or, if the bus
        refuses it, after WATCH_START_TIMEOUT_S: the gateway still serves, on the TTL)."""
        self._watch = asyncio.create_task(self._follow_changes(), name="token-watch")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._watching.wait(), WATCH_START_TIMEOUT_S)

    async def stop(self) -> None:
        """Cancels the watch until it has ended: Python 3.11's asyncio.wait_for (inside
        nats-py's `KeyWatcher.updates`) drops a cancellation that arrives in the same tick
        as an update, and the watch would then wait up to an hour for the next one (a test
        teardown hung on it once, right after a revoke)."""
        task, self._watch = self._watch, None
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_RETRY_S)
        if task is not None and not task.cancelled():
            task.exception()  # retrieved: an error it ended with is not logged as lost

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

    def forget_cached(self) -> None:
        self._changes_seen += 1
        self._cache.clear()

    async def _record(self, token: str) -> TokenRecord | None:
        cached = self._cache.get(token)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        changes_before = self._changes_seen
        record = await self._tokens.lookup(token)
        # A change seen while the lookup was in flight may be this token's revocation, which
        # the lookup may have read too late to see: use the answer once, do not keep it.
        if record is None or self._ttl <= 0 or self._changes_seen != changes_before:
            return record
        if len(self._cache) >= CACHE_MAX:
            self._cache.clear()
        self._cache[token] = (time.monotonic() + self._ttl, record)
        return record

    async def _follow_changes(self) -> None:
        # Token changes are rare: any change drops the whole cache (simpler than mapping
        # ids to cached secrets, and the next request of each caller pays one KV read).
        while True:
            try:
                changes = await self._tokens.changes()
                self.forget_cached()  # anything may have changed while not watching
                self._watching.set()
                async for _ in changes:
                    self.forget_cached()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("token watch failed (%r); cache falls back to its TTL", exc)
            await asyncio.sleep(WATCH_RETRY_S)


def bearer_credential(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("missing bearer token: send 'Authorization: Bearer <token>'")
    return token.strip()
