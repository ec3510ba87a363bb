"""Folding recall activity into each memory's access statistics, off the hot path.

Many recalls become one write per memory per batch, and a batch gathers the recalls of a
window (`ActivitySubscriber`). Counters are approximate by design: a batch redelivered
after a crash may count twice, which is cheaper than exactly-once here.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive.v1 import events_pb2
from memhive_contracts.mapping import from_timestamp
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import record_access
from memhive_ports import MemoryStore, StoredMemory

MAX_ATTEMPTS = 5
# Records read and written at a time: a batch may name thousands of memories.
FOLD_CHUNK = 64


@dataclass(slots=True)
class Hits:
    count: int
    last_at: datetime


def tally(activity: Sequence[events_pb2.MemoriesRecalled]) -> dict[str, dict[str, Hits]]:
    """Hits per memory, by workspace: how many, and the latest."""
    by_workspace: dict[str, dict[str, Hits]] = defaultdict(dict)
    for event in activity:
        when = from_timestamp(event.occurred_at, True)
        hits = by_workspace[event.workspace_id]
        for memory_id in event.memory_ids:
            if (seen := hits.get(memory_id)) is None:
                hits[memory_id] = Hits(1, when)
            else:
                seen.count, seen.last_at = seen.count + 1, max(seen.last_at, when)
    return by_workspace


class AccessCounter:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def __call__(self, activity: Sequence[events_pb2.MemoriesRecalled]) -> None:
        for workspace_id, hits in tally(activity).items():
            memory_ids = list(hits)
            for start in range(0, len(memory_ids), FOLD_CHUNK):
                chunk = memory_ids[start : start + FOLD_CHUNK]
                current = await self._store.get_many(workspace_id, chunk)
                await asyncio.gather(
                    *(self._fold(current.get(m), workspace_id, m, hits[m]) for m in chunk)
                )

    async def _fold(
        self, current: StoredMemory | None, workspace_id: str, memory_id: str, hits: Hits
    ) -> None:
        for _ in range(MAX_ATTEMPTS):
            if current is None or current.memory.forgotten:
                return
            try:
                updated = record_access(current.memory, hits.count, hits.last_at)
                await self._store.replace(current, updated, current.last_command_id)
                return
            except ConcurrentUpdate:
                current = await self._store.get(workspace_id, memory_id)
