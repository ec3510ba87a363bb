"""Use cases on one memory or a listing: get, list, forget. All confined to the caller's view."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from memhive.v1 import commands_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_contracts.requester_mapping import requester_to_pb
from memhive_domain.errors import NotAllowed, NotFound
from memhive_domain.ids import memory_id_or_not_found
from memhive_domain.listing import ListPosition, decode_cursor, encode_cursor
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest, plan_listing, view_of
from memhive_domain.scope_tree import can_write, write_refusal
from memhive_domain.selection import is_selected
from memhive_ports import Clock, EventPublisher, LexicalIndex, MemoryStore

from memhive_query.event_waiter import (
    EventWaiter,
    following_unless_accepted,
    settling_event,
)
from memhive_query.use_cases.save import Wait

MAX_PAGE = 100


@dataclass(frozen=True, slots=True)
class Page:
    items: list[Memory]
    next_cursor: str | None  # opaque: where this page ended (keyset), for the next one


class MemoryReader:
    def __init__(self, store: MemoryStore, lexical: LexicalIndex, clock: Clock) -> None:
        self._store, self._lexical, self._clock = store, lexical, clock

    async def get(
        self, principal: Principal, memory_id: str, *, include_expired: bool = False
    ) -> Memory:
        """Forgotten, expired, invisible and unknown look the same to a caller: not found
        (expired ones are found for members auditing with `include_expired`)."""
        require(principal, Action.READ)
        if include_expired:
            require(principal, Action.READ_EXPIRED)
        stored = await self._store.get(principal.workspace_id, memory_id_or_not_found(memory_id))
        view = replace(view_of(principal), include_expired=include_expired)
        if stored is None or not is_selected(stored.memory, view, self._clock.now()):
            raise NotFound("memory", memory_id)
        return stored.memory

    async def list(
        self, principal: Principal, selection: SelectionRequest, cursor: str | None, limit: int
    ) -> Page:
        """`cursor` is a next_cursor this API returned (422 naming `cursor` otherwise)."""
        require(principal, Action.READ)
        now = self._clock.now()
        after = decode_cursor(cursor)
        memory_filter = plan_listing(selection, principal=principal, now=now)
        limit = max(1, min(limit, MAX_PAGE))
        listed: list[ListPosition] = await self._lexical.list_ids(memory_filter, after, limit + 1)
        ids = [p.memory_id for p in listed[:limit]]
        records = await self._store.get_many(principal.workspace_id, ids)
        items = [
            records[i].memory
            for i in ids
            if i in records and is_selected(records[i].memory, memory_filter, now)
        ]
        more = len(listed) > limit
        return Page(items, encode_cursor(listed[limit - 1]) if more else None)


class ForgetMemory:
    def __init__(
        self,
        reader: MemoryReader,
        publisher: EventPublisher,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
    ) -> None:
        self._reader, self._publisher, self._waiter = reader, publisher, waiter
        self._clock, self._timeout = clock, wait_timeout_s

    async def __call__(
        self, principal: Principal, memory_id: str, wait: Wait, reason: str = ""
    ) -> str:
        require(principal, Action.FORGET)
        memory = await self._reader.get(principal, memory_id)
        if not can_write(principal, memory.scope_ref):
            raise NotAllowed(f"cannot forget: {write_refusal(principal, memory.scope_ref)}")
        command_id = str(uuid.uuid4())
        command = commands_pb2.ForgetMemory(
            command_id=command_id,
            workspace_id=principal.workspace_id,
            memory_id=memory.id,
            requested_by=principal.user_id,
            reason=reason,
            requested_at=to_timestamp(self._clock.now()),
            requester=requester_to_pb(principal),
        )
        subject = subjects.for_workspace(subjects.FORGET_MEMORY, principal.workspace_id)
        with following_unless_accepted(self._waiter, memory.id, wait) as events:
            await self._publisher.publish(subject, command, msg_id=command_id)
            if events is None:
                return "accepted"
            # An earlier write's MemorySaved or MemoryIndexed, still in flight, is not ours.
            done = await settling_event(self._waiter, events, self._timeout, _not_a_write)
        return "accepted" if done is None else "forgotten"


def _not_a_write(event) -> bool:
    return not isinstance(event, events_pb2.MemorySaved | events_pb2.MemoryIndexed)
