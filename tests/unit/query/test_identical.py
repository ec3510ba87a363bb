"""IdenticalSaves over fakes: the record a save creates at its body's content id (the first
slot free or live), a record taken back, and when a duplicate must be announced again."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.ids import content_id
from memhive_domain.memory import Memory, forget
from memhive_ports import LaneHit
from memhive_query.use_cases.identical import MAX_ATTEMPTS, IdenticalSaves

from tests.fakes import FakeLexicalIndex, FakeStore, FakeWaiter
from tests.unit.query.memories import NOW, memory, mid

BODY = "Release trains leave every other Tuesday"


def new_save() -> Memory:
    """A save as the gateway builds it: a random id, created now."""
    return memory(99, days_ago=0, body=BODY)


def slot(attempt: int) -> str:
    return content_id("ws", "global", BODY, attempt)


def held(store: FakeStore, attempt: int, *, forgotten: bool = False) -> Memory:
    copy = replace(memory(1, body=BODY), id=slot(attempt))
    store.put(forget(copy, NOW - timedelta(days=1)) if forgotten else copy)
    return copy


async def test_a_free_slot_is_created_without_a_read() -> None:
    store = FakeStore()
    recorded = await IdenticalSaves(store, FakeWaiter()).record(new_save(), "cmd-1")
    assert recorded.existing is None and recorded.created is not None
    assert recorded.created.memory.id == slot(0) and recorded.created.last_command_id == "cmd-1"
    assert store.rows[("ws", slot(0))] == recorded.created and store.gets == []


async def test_a_live_memory_in_the_slot_makes_the_save_a_duplicate() -> None:
    store = FakeStore()
    existing = held(store, 0)
    recorded = await IdenticalSaves(store, FakeWaiter()).record(new_save(), "cmd-1")
    assert recorded.created is None and recorded.existing.memory == existing
    assert store.gets == [slot(0)]  # read once, to tell live from forgotten


async def test_a_forgotten_copy_moves_the_save_to_the_next_slot() -> None:
    store = FakeStore()
    held(store, 0, forgotten=True)
    recorded = await IdenticalSaves(store, FakeWaiter()).record(new_save(), "cmd-1")
    assert recorded.created.memory.id == slot(1)


async def test_past_the_attempts_the_save_keeps_its_own_id() -> None:
    store = FakeStore()
    for attempt in range(MAX_ATTEMPTS):
        held(store, attempt, forgotten=True)
    recorded = await IdenticalSaves(store, FakeWaiter()).record(new_save(), "cmd-1")
    assert recorded.created.memory.id == mid(99)


class PurgedInBetween(FakeStore):
    """The slot's create fails, and the copy that held it is purged before the read."""

    async def create(self, memory: Memory, command_id: str):
        if memory.id == slot(0):
            raise ConcurrentUpdate("exists")
        return await super().create(memory, command_id)


async def test_a_slot_purged_between_the_create_and_the_read_is_passed_over() -> None:
    recorded = await IdenticalSaves(PurgedInBetween(), FakeWaiter()).record(new_save(), "cmd-1")
    assert recorded.created.memory.id == slot(1)


async def test_identical_saves_racing_make_one_memory() -> None:
    store = FakeStore()
    saves = IdenticalSaves(store, FakeWaiter())
    first, second = await asyncio.gather(
        saves.record(new_save(), "cmd-1"), saves.record(new_save(), "cmd-2")
    )
    assert first.created is not None and second.existing == first.created
    assert list(store.rows) == [("ws", slot(0))]


class CountedLexical(FakeLexicalIndex):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def present(self, workspace_id, memory_ids):
        self.reads += 1
        return await super().present(workspace_id, memory_ids)


async def test_only_a_first_revision_missing_from_the_lexical_lane_is_announced_again() -> None:
    store, lexical = FakeStore(), CountedLexical()
    saves = IdenticalSaves(store, FakeWaiter(), lexical)
    created = (await saves.record(new_save(), "cmd-1")).created
    assert await saves.settle(created, "persisted") == (None, True)
    lexical.hits.append(LaneHit(created.memory.id, 1.0))
    assert await saves.settle(created, "persisted") == (None, False)  # indexed long ago
    lexical.hits.clear()
    changed = replace(created, memory=replace(created.memory, revision=2))
    assert await saves.settle(changed, "persisted") == (None, False)  # announced itself
    assert lexical.reads == 2  # a later revision is not looked for at all
    waited, announce = await saves.settle(changed, "indexed")  # looked for, to wait on
    assert waited is not None and not announce
    no_lane = IdenticalSaves(store, FakeWaiter())
    assert await no_lane.settle(created, "persisted") == (None, False)


async def test_one_look_at_the_lane_settles_a_duplicate_waited_for_when_indexed() -> None:
    store, waiter, lexical = FakeStore(), FakeWaiter(), CountedLexical()
    created = (await IdenticalSaves(store, waiter).record(new_save(), "cmd-1")).created
    saves = IdenticalSaves(store, waiter, lexical)
    assert await saves.settle(created, "indexed") == ((slot(0), "indexed"), True)
    assert waiter.expected == [(slot(0), "indexed")] and lexical.reads == 1
    waiter.expected.clear()
    lexical.hits.append(LaneHit(slot(0), 1.0))
    assert await saves.settle(created, "indexed") == (None, False)
    assert waiter.expected == [] and lexical.reads == 2


async def test_a_duplicate_not_yet_in_the_lexical_lane_is_waited_for_when_indexed() -> None:
    store, waiter, lexical = FakeStore(), FakeWaiter(), FakeLexicalIndex()
    existing = held(store, 0)
    saves = IdenticalSaves(store, waiter, lexical)
    assert await saves.until_indexed(existing, "indexed") == (slot(0), "indexed")
    assert waiter.expected == [(slot(0), "indexed")]

    lexical.hits.append(LaneHit(slot(0), 1.0))  # indexed since: nothing to wait for
    waiter.expected.clear()
    assert await saves.until_indexed(existing, "indexed") is None
    assert await saves.until_indexed(existing, "persisted") is None
    assert waiter.expected == []


class FailingStore(FakeStore):
    async def create(self, memory: Memory, command_id: str):
        raise ConnectionError("bus down")


async def test_a_failed_create_is_the_saves_failure() -> None:
    with pytest.raises(ConnectionError):
        await IdenticalSaves(FailingStore(), FakeWaiter()).record(new_save(), "cmd-1")
