"""IdenticalSaves over fakes: the content id a save claims (the first slot free or live), the
waiter registered on it, and whose save won once the wait is over."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from memhive.v1 import events_pb2
from memhive_contracts.mapping import memory_to_pb
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


async def test_a_free_slot_is_claimed_with_a_waiter_on_it() -> None:
    waiter = FakeWaiter()
    claim = await IdenticalSaves(FakeStore(), waiter).claim(new_save(), "persisted", NOW)
    assert (claim.memory.id, claim.existing) == (slot(0), None)
    assert claim.memory.body == BODY and claim.waiting == (slot(0), "persisted")
    assert waiter.expected == [(slot(0), "persisted")]


async def test_a_live_memory_in_the_slot_makes_the_save_a_duplicate() -> None:
    store, waiter = FakeStore(), FakeWaiter()
    existing = held(store, 0)
    claim = await IdenticalSaves(store, waiter).claim(new_save(), "persisted", NOW)
    assert (claim.memory.id, claim.existing, claim.waiting) == (slot(0), existing, None)
    assert waiter.expected == []  # the waiter registered on the slot was cancelled


async def test_a_duplicate_not_yet_in_the_lexical_lane_is_waited_for_when_indexed() -> None:
    store, waiter, lexical = FakeStore(), FakeWaiter(), FakeLexicalIndex()
    existing = held(store, 0)
    claim = await IdenticalSaves(store, waiter, lexical).claim(new_save(), "indexed", NOW)
    assert (claim.existing, claim.waiting) == (existing, (slot(0), "indexed"))
    assert waiter.expected == [(slot(0), "indexed")]

    lexical.hits.append(LaneHit(slot(0), 1.0))  # indexed since: nothing to wait for
    waiter.expected.clear()
    claim = await IdenticalSaves(store, waiter, lexical).claim(new_save(), "indexed", NOW)
    assert (claim.existing, claim.waiting, waiter.expected) == (existing, None, [])


async def test_a_forgotten_copy_moves_the_save_to_the_next_slot() -> None:
    store, waiter = FakeStore(), FakeWaiter()
    held(store, 0, forgotten=True)
    claim = await IdenticalSaves(store, waiter).claim(new_save(), "indexed", NOW)
    assert (claim.memory.id, claim.existing) == (slot(1), None)
    assert waiter.expected == [(slot(1), "indexed")]


async def test_past_the_attempts_the_save_keeps_its_own_id() -> None:
    store, waiter = FakeStore(), FakeWaiter()
    for attempt in range(MAX_ATTEMPTS):
        held(store, attempt, forgotten=True)
    claim = await IdenticalSaves(store, waiter).claim(new_save(), "persisted", NOW)
    assert (claim.memory.id, claim.existing) == (mid(99), None)
    assert waiter.expected == [(mid(99), "persisted")]


async def test_without_a_stage_nothing_waits() -> None:
    waiter = FakeWaiter()
    claim = await IdenticalSaves(FakeStore(), waiter).claim(new_save(), None, NOW)
    assert (claim.memory.id, claim.waiting, waiter.expected) == (slot(0), None, [])


async def test_the_winner_is_whoever_created_the_record() -> None:
    store = FakeStore()
    saves = IdenticalSaves(store, FakeWaiter())
    ours = replace(new_save(), id=slot(0))
    assert await saves.winner(ours, "cmd-ours") is None  # nothing stored yet

    await store.create(ours, "cmd-ours")
    assert await saves.winner(ours, "cmd-ours") is None
    changed_since = store.rows[("ws", slot(0))]
    await store.replace(changed_since, replace(ours, importance=0.9), "cmd-later")
    assert await saves.winner(ours, "cmd-ours") is None  # still ours: same author and time

    theirs = replace(ours, created_at=NOW - timedelta(seconds=1), created_by="u2")
    store.rows.clear()
    await store.create(theirs, "cmd-theirs")
    assert await saves.winner(ours, "cmd-ours") == theirs


async def test_the_event_that_ended_the_wait_names_the_winner_without_a_read() -> None:
    store = FakeStore()
    saves = IdenticalSaves(store, FakeWaiter())
    ours = replace(new_save(), id=slot(0))
    theirs = replace(ours, created_at=NOW - timedelta(seconds=1), created_by="u2")

    def saved(memory, command_id):
        return events_pb2.MemorySaved(memory=memory_to_pb(memory), command_id=command_id)

    def indexed(memory):
        return events_pb2.MemoryIndexed(memory=memory_to_pb(memory))

    assert await saves.winner(ours, "cmd-ours", saved(ours, "cmd-ours")) is None
    assert await saves.winner(ours, "cmd-ours", saved(theirs, "cmd-theirs")) == theirs
    assert await saves.winner(ours, "cmd-ours", indexed(replace(ours, revision=2))) is None
    assert await saves.winner(ours, "cmd-ours", indexed(theirs)) == theirs
    assert store.gets == []


class FailingStore(FakeStore):
    async def get(self, workspace_id: str, memory_id: str):
        raise ConnectionError("bus down")


async def test_a_failed_read_leaves_no_waiter_behind() -> None:
    waiter = FakeWaiter()
    with pytest.raises(ConnectionError):
        await IdenticalSaves(FailingStore(), waiter).claim(new_save(), "indexed", NOW)
    assert waiter.expected == []
