"""The records the bulletin has read, kept between refreshes and dropped when an event names
them: a refresh re-reads what changed, not its whole scope.

A scope's refresh reads every live memory of the scope (up to `bulletin.max_memories`), but
between two refreshes only the memories that the events named have changed: the saves,
updates, forgets and links that made the scope due (a link only when it can supersede: a
copy keeps its other edges as they were when read, and a bulletin reads none of those). The
subscriber drops those before it marks the scope changed, so a due refresh never sees a
record older than the event that made it due. Whatever changes a record without an event
the bulletin follows (access statistics) is not shown in a bulletin; `max_age_s` bounds how
long any copy is kept anyway.

A new memory's own MemoryIndexed carries the record as ingest created it, and a record is
created without edges: that copy is kept instead of read, so a save costs the bulletin no
read (`keep_announced`). Only where the copy is provably the record: its first revision,
no event this process saw has named it since (a link, a forget: MemoriesLinked may come
before MemoryIndexed when a save links before embed indexes it), and created after this
process started, by more than any clock skew, so that no link naming it was handled by a
previous process (across a restart nothing else tells which links that one saw). And only
where this process is the only one following the events (embedded lanes): replicas sharing
the durable each see part of them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

from memhive_domain.memory import Memory
from memhive_domain.scopes import ScopeRef
from memhive_ports import MemoryReader, StoredMemory

_Key = tuple[str, str]  # (workspace id, memory id)

# How far the gateway's clock (a memory's created_at) may run behind this process's.
CLOCK_SKEW = timedelta(seconds=5)
# Memories named by an event (links, forgets, revisions: not plain saves) remembered, so
# that a MemoryIndexed coming that many events later is still not trusted (~10 MB at most).
NAMED_KEPT = 100_000
# Nodes of the memories held or read lately (a memory's node is fixed when it is saved): a
# link names its ends' records, and their scopes are known without reading them (~15 MB).
SCOPES_KEPT = 100_000


class EventFreshRecords:
    """Answers reads from the records it holds and reads the others from `store`.

    A read that was in flight when an event dropped one of its ids does not keep that
    record: it may be the state from before the event. Holds at most `capacity` records,
    the least recently read dropped first.
    """

    def __init__(
        self,
        store: MemoryReader,
        *,
        capacity: int = 10_000,
        max_age_s: float = 600.0,
        monotonic: Callable[[], float] = time.monotonic,
        started_at: datetime | None = None,
    ) -> None:
        """started_at: when this process began following the events, if it is the only one
        that does (embedded lanes: one process); None keeps no announced copy."""
        self._store, self._capacity, self._max_age_s = store, capacity, max_age_s
        self._monotonic = monotonic
        self._trust_after = None if started_at is None else started_at + CLOCK_SKEW
        self._named: OrderedDict[_Key, None] = OrderedDict()  # by an event other than
        # a new memory's MemoryIndexed: its record may hold what no announced copy shows
        self._held: OrderedDict[_Key, tuple[float, StoredMemory]] = OrderedDict()
        self._scopes: OrderedDict[_Key, ScopeRef] = OrderedDict()  # outlive drops and ages
        self._drops = 0  # how many drops so far: a read keeps what no later drop named
        self._dropped_at: dict[_Key, int] = {}  # only while reads are in flight
        self._reads_in_flight = 0
        self.reads = 0  # records read from the store (the figure this saves)

    def drop(self, workspace_id: str, memory_ids: Iterable[str]) -> None:
        """The named records changed (an event said so): the next read goes to the store."""
        self._drops += 1
        for memory_id in memory_ids:
            key = (workspace_id, memory_id)
            self._held.pop(key, None)
            if self._trust_after is not None:  # else no announced copy is ever kept
                self._named[key] = None
                self._named.move_to_end(key)
            if self._reads_in_flight:
                self._dropped_at[key] = self._drops
        while len(self._named) > NAMED_KEPT:
            self._named.popitem(last=False)

    def keep_announced(self, memory: Memory) -> None:
        """A MemoryIndexed's memory: held as the record where it provably is the record
        (the module's docstring), else dropped like any other change."""
        key = (memory.workspace_id, memory.id)
        if not self._is_new_record(key, memory):
            self.drop(memory.workspace_id, [memory.id])
            return
        self._drops += 1  # a read in flight may have fetched the record before it existed
        if self._reads_in_flight:
            self._dropped_at[key] = self._drops
        self._keep(key, self._monotonic(), StoredMemory(memory, 0, ""))

    def _is_new_record(self, key: _Key, memory: Memory) -> bool:
        trusted = self._trust_after is not None and memory.created_at >= self._trust_after
        return trusted and memory.revision == 1 and key not in self._named

    def known_scopes(self, workspace_id: str, memory_ids: Iterable[str]) -> dict[str, ScopeRef]:
        """The node of each of these memories this cache has held or read (dropped or
        not: a memory never moves), by id; the others are left out."""
        held = ((m, self._scopes.get((workspace_id, m))) for m in memory_ids)
        return {m: scope for m, scope in held if scope is not None}

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None:
        return (await self.get_many(workspace_id, [memory_id])).get(memory_id)

    async def get_many(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, StoredMemory]:
        unique = list(dict.fromkeys(memory_ids))
        found: dict[str, StoredMemory] = {}
        missing: list[str] = []
        oldest = self._monotonic() - self._max_age_s
        for memory_id in unique:
            key = (workspace_id, memory_id)
            held = self._held.get(key)
            if held is not None and held[0] >= oldest:
                self._held.move_to_end(key)
                found[memory_id] = held[1]
            else:
                missing.append(memory_id)
        if not missing:
            return found
        found |= await self._read(workspace_id, missing)
        # In the order asked, as the store answers: a render never depends on what was held.
        return {m: found[m] for m in unique if m in found}

    async def _read(self, workspace_id: str, memory_ids: list[str]) -> dict[str, StoredMemory]:
        started, read_at = self._drops, self._monotonic()
        self._reads_in_flight += 1
        try:
            read = await self._store.get_many(workspace_id, memory_ids)
        finally:
            self._reads_in_flight -= 1
        self.reads += len(memory_ids)
        for memory_id, stored in read.items():
            key = (workspace_id, memory_id)
            if self._dropped_at.get(key, 0) <= started:
                self._keep(key, read_at, stored)
        if not self._reads_in_flight:
            self._dropped_at.clear()
        return read

    def _keep(self, key: _Key, read_at: float, stored: StoredMemory) -> None:
        self._held[key] = (read_at, stored)
        self._held.move_to_end(key)
        while len(self._held) > self._capacity:
            self._held.popitem(last=False)
        self._scopes[key] = stored.memory.scope_ref
        self._scopes.move_to_end(key)
        while len(self._scopes) > SCOPES_KEPT:
            self._scopes.popitem(last=False)
