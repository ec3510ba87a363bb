"""Which embed replica migrates the lanes to a new encoder: a lease, one key in the lanes
bucket beside the generation pointer.

The holder renews it every RENEW_S; a lease not renewed for EXPIRES_S (its holder died
mid-migration) is taken over by the next replica that asks, which starts the rebuild
again. Every write is a compare-and-set on the key's revision, so two replicas never both
believe they hold it; a holder that finds it taken has its migration cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from memhive_contracts.streams import LANES_BUCKET
from nats.js import JetStreamContext
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

log = logging.getLogger(__name__)

RENEW_S = 5.0
EXPIRES_S = 30.0


class KvMigrationLease:
    def __init__(self, kv: KeyValue, key: str, *, clock: Callable[[], float] = time.time) -> None:
        self._kv, self._key, self._clock = kv, key, clock
        self._holder = uuid.uuid4().hex
        self._revision: int | None = None
        self._encoder = ""

    @classmethod
    async def open(cls, js: JetStreamContext, pointer_key: str) -> KvMigrationLease:
        return cls(await js.key_value(LANES_BUCKET), f"{pointer_key}.migration")

    async def acquire(self, encoder: str) -> bool:
        self._encoder = encoder
        try:
            entry = await self._kv.get(self._key)
        except KeyNotFoundError:
            return await self._write(None)
        if entry.value and not self._free(json.loads(entry.value)):
            return False
        return await self._write(entry.revision)

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        keeper = asyncio.create_task(self._keep(asyncio.current_task()), name="migration-lease")
        try:
            yield
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            await self._release()

    def _free(self, lease: dict) -> bool:
        mine = lease.get("holder") == self._holder
        return mine or self._clock() - float(lease.get("renewed_at", 0)) > EXPIRES_S

    async def _write(self, revision: int | None) -> bool:
        value = json.dumps(
            {"holder": self._holder, "encoder": self._encoder, "renewed_at": self._clock()}
        ).encode()
        try:
            if revision is None:
                self._revision = await self._kv.create(self._key, value)
            else:
                self._revision = await self._kv.update(self._key, value, last=revision)
        except KeyWrongLastSequenceError:  # another replica got there first
            return False
        return True

    async def _keep(self, owner: asyncio.Task | None) -> None:
        while True:
            await asyncio.sleep(RENEW_S)
            if not await self._write(self._revision):
                log.warning("the encoder migration lease was taken over: stopping this one")
                self._revision = None  # not ours to give back
                if owner is not None:
                    owner.cancel()
                return

    async def _release(self) -> None:
        """Gives the lease back (deleting the key), unless it is no longer ours."""
        if self._revision is None:
            return
        # A delete with a stale revision is refused as a bad request: taken over meanwhile.
        with contextlib.suppress(KeyWrongLastSequenceError, KeyNotFoundError, BadRequestError):
            await self._kv.delete(self._key, last=self._revision)
        self._revision = None
