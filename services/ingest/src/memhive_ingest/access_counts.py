"""Folding recall activity into each memory's access statistics, off the hot path.

Many recalls become one write per memory per batch. Counters are approximate by design:
a batch redelivered after a crash may count twice, which is cheaper than exactly-once here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from memhive.v1 import events_pb2
from memhive_contracts.mapping import from_timestamp
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import record_access
from memhive_ports import MemoryStore

MAX_ATTEMPTS = 5


class AccessCounter:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def __call__(self, activity: Sequence[events_pb2.MemoriesRecalled]) -> None:
        hits: Counter[tuple[str, str]] = Counter()
        last_at: dict[tuple[str, str], datetime] = {}
        for event in activity:
            when = from_timestamp(event.occurred_at, True)
            for memory_id in event.memory_ids:
                key = (event.workspace_id, memory_id)
                hits[key] += 1
                last_at[key] = max(last_at.get(key, when), when)
        for key, count in hits.items():
            await self._fold(key, count, last_at[key])

    async def _fold(self, key: tuple[str, str], count: int, when: datetime) -> None:
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(*key)
            if current is None or current.memory.forgotten:
                return
            try:
                updated = record_access(current.memory, count, when)
                await self._store.replace(current, updated, current.last_command_id)
                return
            except ConcurrentUpdate:
                continue
