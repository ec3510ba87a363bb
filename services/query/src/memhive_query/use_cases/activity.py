"""Use case: recent activity in the caller's view, newest first, a bounded page at a time.

Events come from the log in chunks; each chunk's memories are read from the record in one
batch, and the domain decides what of each event the caller may see
(`memhive_domain.activity.shown`). A page ends at `limit` entries, at `since`, or where the
log reader stopped (it examines a bounded part of the log per request): the cursor then
continues exactly after the last event examined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive_domain.activity import (
    ActivityEntry,
    ActivityEvent,
    ActivityQuery,
    encode_cursor,
    plan_activity,
    shown,
)
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_ports import Clock, MemoryStore
from memhive_ports.activity import ActivityLog

CHUNK = 32  # events whose records are read together


@dataclass(frozen=True, slots=True)
class ActivityRequest:
    scope: str | None = None
    kinds: Sequence[str] | None = None
    since: datetime | None = None
    limit: int = 20
    cursor: str | None = None


@dataclass(frozen=True, slots=True)
class ActivityPage:
    entries: list[ActivityEntry]  # newest first
    next_cursor: str | None


class RecentActivity:
    def __init__(self, log: ActivityLog, store: MemoryStore, clock: Clock) -> None:
        self._log, self._store, self._clock = log, store, clock

    async def __call__(self, principal: Principal, request: ActivityRequest) -> ActivityPage:
        require(principal, Action.READ_ACTIVITY)
        query = plan_activity(
            principal,
            scope=request.scope,
            kinds=request.kinds,
            since=request.since,
            limit=request.limit,
            cursor=request.cursor,
        )
        page = _Page(principal, query)
        reading = self._log.newest_first(principal.workspace_id, query.kinds, query.start)
        chunk: list[ActivityEvent] = []
        async for event in reading:
            if query.since is not None and event.time < query.since:
                return await self._close(page, chunk, None)
            chunk.append(event)
            if len(chunk) == CHUNK:
                if (full := await self._take(page, chunk)) is not None:
                    return full
                chunk = []
        resume = reading.resume
        return await self._close(page, chunk, None if resume is None else encode_cursor(resume))

    async def _close(
        self, page: _Page, chunk: list[ActivityEvent], cursor: str | None
    ) -> ActivityPage:
        return await self._take(page, chunk) or ActivityPage(page.entries, cursor)

    async def _take(self, page: _Page, chunk: list[ActivityEvent]) -> ActivityPage | None:
        """Adds what the caller may see; the full page once `limit` is reached."""
        ids = list(dict.fromkeys(i for e in chunk for i in e.memory_ids_read))
        stored = await self._store.get_many(page.principal.workspace_id, ids)
        records = {i: s.memory for i, s in stored.items()}
        now = self._clock.now()
        for event in chunk:
            entry = shown(event, records, page.query, page.principal, now)
            if entry is not None and page.add(event, entry):
                end = event.resume.is_end
                return ActivityPage(page.entries, None if end else encode_cursor(event.resume))
        return None


class _Page:
    """The entries so far; a revision the log announced twice is shown once."""

    def __init__(self, principal: Principal, query: ActivityQuery) -> None:
        self.principal, self.query = principal, query
        self.entries: list[ActivityEntry] = []
        self._seen: set[tuple[str, str, int]] = set()

    def add(self, event: ActivityEvent, entry: ActivityEntry) -> bool:
        """True once the page is full."""
        if event.memory is not None:
            key = (event.kind.value, event.memory.id, event.memory.revision)
            if key in self._seen:
                return False
            self._seen.add(key)
        self.entries.append(entry)
        return len(self.entries) == self.query.limit
