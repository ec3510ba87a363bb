"""SpendCounters on a JetStream KV bucket, shared by every replica of a consumer.

Each counter is one key holding a decimal; adding is a compare-and-set on the key's
revision (create when absent), retried on a lost race, so N replicas together never pass
the bound. The bucket's max age expires old windows.
"""

from __future__ import annotations

import asyncio
import random

from memhive_contracts.streams import SPEND_BUCKET
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

# Every lost race means another replica's add succeeded; a random pause that grows with
# each loss spreads a burst out. Past this many losses in a row the add fails (a call is
# refused: the safe side of a spend bound).
MAX_ATTEMPTS = 64
BACKOFF_S = 0.002
_jitter = random.Random()  # its own: the global one belongs to the application (and tests)


class SpendContended(RuntimeError):
    """Lost the compare-and-set MAX_ATTEMPTS times in a row."""


class KvSpendCounters:
    def __init__(self, kv: KeyValue) -> None:
        self._kv = kv

    @classmethod
    async def open(cls, js: JetStreamContext) -> KvSpendCounters:
        """Binds to the bucket that connection.ensure_streams declared."""
        return cls(await js.key_value(SPEND_BUCKET))

    async def add_within(self, key: str, amount: int, bound: int) -> bool:
        return await self._add(key, amount, bound)

    async def add(self, key: str, amount: int) -> None:
        await self._add(key, amount, None)

    async def total(self, key: str) -> int:
        return (await self._read(key))[0]

    async def _add(self, key: str, amount: int, bound: int | None) -> bool:
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                await asyncio.sleep(_jitter.uniform(0, BACKOFF_S * min(attempt, 16)))
            value, revision = await self._read(key)
            if bound is not None and value + amount > bound:
                return False
            new = str(value + amount).encode()
            try:
                if revision is None:
                    await self._kv.create(key, new)
                else:
                    await self._kv.update(key, new, last=revision)
                return True
            except KeyWrongLastSequenceError:
                continue  # another replica added first: read again
        raise SpendContended(f"spend counter {key} contended {MAX_ATTEMPTS} times")

    async def _read(self, key: str) -> tuple[int, int | None]:
        try:
            entry = await self._kv.get(key)
        except KeyNotFoundError:
            return 0, None
        return int(entry.value or b"0"), entry.revision
