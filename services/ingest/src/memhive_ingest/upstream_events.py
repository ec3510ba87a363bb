"""Use case: upstream lifecycle events (issues, comments, jobs, notes, knowledge) become memories.

Each event maps to memories keyed on their source_ref (memhive_domain.upstream); for each one
the record decides: create, revise (revision-checked replace, re-read on conflict), leave it
(unchanged: a replay or redelivery) or skip it (stale: delivered out of order, so it must not
roll the memory back). Created and revised memories are announced with MemorySaved so embed
indexes them; the event id is derived from the upstream event id and the memory id, so a
re-announcement is stored once.

A revision is the same memory with a new meaning, so it gets no `updates` edge: an edge links
two memories, and here there is one. Recall only ever sees the newest revision, and the
older meanings stay auditable in the revision history (GET /v1/memories/{id}/revisions).

A knowledge snapshot is the whole picture of its product: entries the previous snapshot had
and this one lacks are forgotten (MemoryForgotten), unless the snapshot is older than them.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence

from memhive_application.announcements import Announcer
from memhive_contracts.mapping import to_timestamp
from memhive_contracts.upstream_mapping import upstream_event_from_wire
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import forget
from memhive_domain.scopes import Scope, ScopeRef
from memhive_domain.time_range import as_utc
from memhive_domain.upstream import (
    KnowledgeSnapshot,
    RevisionDecision,
    UpstreamEvent,
    UpstreamMemory,
    apply_revision,
    create_upstream_memory,
    memories_from,
    revision_decision,
    upstream_memory_id,
    upstream_principal,
)
from memhive_ports import Clock, EventPublisher, MemoryStore, StoredMemory
from memhive_ports.products import ProductDirectory
from nats.aio.msg import Msg

from memhive_ingest.product_visibility import product_visibility

MAX_ATTEMPTS = 5
# The record's last_command_id for writes an upstream event made: a redelivery that finds
# its own write already durable re-announces it instead of dropping the announcement.
COMMAND_PREFIX = "upstream:"


def upstream_command_id(event_id: str) -> str:
    return f"{COMMAND_PREFIX}{event_id}"


class UpstreamEventSubscriber:
    """Thin subscriber: decode and validate every message first (a bad one fails before
    anything is written, and the consumer then dead-letters it alone), then apply."""

    def __init__(self, apply: UpstreamEventHandler) -> None:
        self._apply = apply

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        await self._apply([upstream_event_from_wire(m.subject, m.data or b"") for m in msgs])


class UpstreamEventHandler:
    def __init__(
        self,
        store: MemoryStore,
        publisher: EventPublisher,
        clock: Clock,
        products: ProductDirectory | None = None,
    ) -> None:
        self._store, self._announcer, self._clock = store, Announcer(publisher), clock
        self._products = products

    async def __call__(self, events: Sequence[UpstreamEvent]) -> list[RevisionDecision]:
        """Applies the events in arrival order per memory, different memories concurrently."""
        lanes: dict[str, list[UpstreamMemory]] = defaultdict(list)
        for event in events:
            for incoming in memories_from(event):
                lanes[incoming.memory_id].append(incoming)
        decided = await asyncio.gather(*(self._in_order(items) for items in lanes.values()))
        for event in events:
            if isinstance(event, KnowledgeSnapshot):
                await self._forget_leftovers(event)
        return [decision for decisions in decided for decision in decisions]

    async def _in_order(self, items: list[UpstreamMemory]) -> list[RevisionDecision]:
        return [await self._apply(incoming) for incoming in items]

    async def _apply(self, incoming: UpstreamMemory) -> RevisionDecision:
        command_id = upstream_command_id(incoming.event_id)
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(incoming.workspace_id, incoming.memory_id)
            decision = revision_decision(current.memory if current else None, incoming)
            try:
                stored = await self._write(decision, current, incoming, command_id)
            except ConcurrentUpdate:
                continue  # written in between (another event, access counts): re-read
            if stored is not None:
                await self._announce_saved(stored, incoming.event_id)
            return decision
        raise ConcurrentUpdate(f"memory {incoming.memory_id} kept changing; will retry")

    async def _write(
        self,
        decision: RevisionDecision,
        current: StoredMemory | None,
        incoming: UpstreamMemory,
        command_id: str,
    ) -> StoredMemory | None:
        now = self._clock.now()
        if decision == "create":
            visibility = await product_visibility(
                self._products, incoming.draft, upstream_principal(incoming)
            )
            created = create_upstream_memory(incoming, now, visibility)
            return await self._store.create(created, command_id)
        assert current is not None
        if decision == "revise":
            revised = apply_revision(current.memory, incoming, now)
            return await self._store.replace(current, revised, command_id)
        # Unchanged because this very event wrote it before a crash: announce it again.
        return current if current.last_command_id == command_id else None

    async def _announce_saved(self, stored: StoredMemory, upstream_event_id: str) -> None:
        memory = stored.memory
        await self._announcer.saved(
            memory,
            event_id=f"{upstream_event_id}:{memory.id}:saved",
            command_id=stored.last_command_id,
            occurred_at=to_timestamp(memory.updated_at),
        )

    async def _forget_leftovers(self, snapshot: KnowledgeSnapshot) -> None:
        for stored in await self._leftovers(snapshot):
            await self._forget(stored, snapshot)

    async def _leftovers(self, snapshot: KnowledgeSnapshot) -> list[StoredMemory]:
        made = {m.source_ref for m in memories_from(snapshot)}
        base = knowledge_ref_base(snapshot.product_id)
        series = {
            "architecture": len(snapshot.architecture_notes),
            "convention": len(snapshot.conventions),
            "procedure": len(snapshot.procedures),
        }
        found: list[StoredMemory] = []
        for name, count in series.items():
            found += await self._series_leftovers(snapshot, f"{base}:{name}", count, made)
        key_files = f"{base}:key-files"
        if key_files not in made:
            found += await self._existing(snapshot, [key_files])
        return found

    async def _series_leftovers(
        self, snapshot: KnowledgeSnapshot, prefix: str, count: int, made: set[str]
    ) -> list[StoredMemory]:
        # Positions this snapshot has but made nothing for (empty text), then every
        # position past its end that an earlier, longer snapshot filled.
        found = await self._existing(
            snapshot, [f"{prefix}:{n}" for n in range(1, count + 1) if f"{prefix}:{n}" not in made]
        )
        n = count + 1
        while stored := await self._store.get(
            snapshot.workspace_id, upstream_memory_id(snapshot.workspace_id, f"{prefix}:{n}")
        ):
            found.append(stored)
            n += 1
        return found

    async def _existing(self, snapshot: KnowledgeSnapshot, refs: list[str]) -> list[StoredMemory]:
        ids = [upstream_memory_id(snapshot.workspace_id, ref) for ref in refs]
        found = await self._store.get_many(snapshot.workspace_id, ids)
        return [found[i] for i in ids if i in found]

    async def _forget(self, stored: StoredMemory, snapshot: KnowledgeSnapshot) -> None:
        command_id = upstream_command_id(snapshot.event_id)
        when = min(as_utc(snapshot.occurred_at), self._clock.now())
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(stored.memory.workspace_id, stored.memory.id)
            if current is None or as_utc(snapshot.occurred_at) < current.memory.updated_at:
                return  # a newer snapshot already put this entry back (or forgot it)
            if current.memory.forgotten:
                if current.last_command_id == command_id:
                    await self._announce_forgotten(current, snapshot)  # lost before a crash
                return
            try:
                forgotten = await self._store.replace(
                    current,
                    forget(current.memory, max(when, current.memory.updated_at)),
                    command_id,
                )
            except ConcurrentUpdate:
                continue
            await self._announce_forgotten(forgotten, snapshot)
            return
        raise ConcurrentUpdate(f"memory {stored.memory.id} kept changing; will retry")

    async def _announce_forgotten(self, stored: StoredMemory, snapshot: KnowledgeSnapshot) -> None:
        memory = stored.memory
        await self._announcer.forgotten(
            memory,
            event_id=f"{snapshot.event_id}:{memory.id}:forgotten",
            command_id=stored.last_command_id,
            reason=f"not in knowledge snapshot {snapshot.snapshot_id}",
            occurred_at=to_timestamp(memory.updated_at),
        )


def knowledge_ref_base(product_id: str | None) -> str:
    """The source_ref prefix of a product's knowledge entries (as memhive_domain.upstream makes)."""
    scope = Scope.PRODUCT if product_id else Scope.GLOBAL
    return f"knowledge:{ScopeRef(scope, product_id).key}"
