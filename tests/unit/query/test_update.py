"""UpdateMemory over fakes: what a change publishes, what it waits for, who may make it, and
how a new body is checked like a save."""

from __future__ import annotations

import pytest
from memhive.v1 import commands_pb2, events_pb2
from memhive_domain.changes import MemoryChanges, change_action
from memhive_domain.curation import FlagDraft
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound
from memhive_domain.policy import Action
from memhive_domain.principals import Principal
from memhive_ports import LaneHit
from memhive_query.use_cases.conflicts import ConflictCheck, NearDuplicates
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.update import ChangeRejected, UpdateMemory

from tests.fakes import (
    FakeEmbedder,
    FakeLexicalIndex,
    FakePublisher,
    FakeStore,
    FakeVectorIndex,
    FakeWaiter,
    FixedClock,
)
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid

TEAM_MEMBER = Principal("ws", "u2", home="product:app")  # reads global, may not write it
FLAG = FlagDraft("outdated", "the trains moved to Wednesdays")


class Rig:
    def __init__(self, *similar: tuple[int, float], arrives: bool = True) -> None:
        self.store, self.publisher = FakeStore(), FakePublisher()
        self.waiter, self.embedder = FakeWaiter(arrives=arrives), FakeEmbedder()
        self.vector = FakeVectorIndex([LaneHit(mid(n), s) for n, s in similar])
        clock = FixedClock(NOW)
        self.update = UpdateMemory(
            MemoryReader(self.store, FakeLexicalIndex(), clock), self.publisher, self.waiter,
            clock, 1.0, embedder=self.embedder,
            conflicts=ConflictCheck(self.vector, self.store, 0.85),
        )  # fmt: skip
        self.store.put(memory(1, body="Release trains leave every other Tuesday"))

    def command(self) -> commands_pb2.UpdateMemory:
        [(subject, command, msg_id)] = self.publisher.sent
        assert isinstance(command, commands_pb2.UpdateMemory)
        assert (subject, msg_id) == ("memhive.cmd.memory.update.ws", command.command_id)
        return command


async def test_a_change_publishes_one_command_and_answers_the_record_after_the_wait() -> None:
    rig = Rig()
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(importance=0.9), wait="persisted")
    command = rig.command()
    assert (command.memory_id, command.requested_by) == (mid(1), "u1")
    assert command.changes.importance == pytest.approx(0.9)
    assert not command.changes.HasField("body")  # only what changes travels
    assert rig.waiter.followed == rig.waiter.stopped_following == [(mid(1), "persisted")]
    assert (outcome.status, outcome.change_id) == ("updated", command.command_id)
    assert outcome.memory == rig.store.rows[("ws", mid(1))].memory  # re-read from the record


async def test_another_write_is_waited_past_and_a_forget_rejects_the_change() -> None:
    rig = Rig()
    earlier = events_pb2.MemoryIndexed(event_id="another-change:indexed")
    rig.waiter.script = [earlier, events_pb2.MemoryForgotten(command_id="forget")]
    with pytest.raises(ChangeRejected, match="was forgotten"):
        await rig.update(MEMBER, mid(1), MemoryChanges(importance=0.9), wait="indexed")
    # One follower, registered before the publish, saw both events; stopped afterwards.
    assert rig.waiter.followed == rig.waiter.stopped_following == [(mid(1), "indexed")]
    assert not rig.waiter.script


async def test_past_the_wait_the_change_is_accepted_with_the_next_revision() -> None:
    rig = Rig(arrives=False)
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(pinned=True), wait="indexed")
    assert outcome.status == "accepted"
    assert (outcome.memory.pinned, outcome.memory.revision, outcome.memory.updated_at) == (
        True,
        2,
        NOW,
    )
    assert rig.command().pinned  # the field older ingests read


async def test_accepted_publishes_without_waiting() -> None:
    rig = Rig()
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(tags=["ops"]), wait="accepted")
    assert outcome.status == "accepted" and rig.waiter.expected == []
    assert list(rig.command().changes.tags.tags) == ["ops"]


async def test_the_same_value_again_writes_nothing() -> None:
    rig = Rig()
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(importance=0.5), wait="persisted")
    assert (outcome.status, outcome.change_id) == ("unchanged", None)
    assert rig.publisher.sent == [] and rig.waiter.expected == []


async def test_an_empty_or_invalid_change_is_refused_before_anything_is_read() -> None:
    rig = Rig()
    for changes in (MemoryChanges(), MemoryChanges(importance=7.0)):
        with pytest.raises(InvalidInput):
            await rig.update(MEMBER, mid(1), changes, wait="persisted")
    assert rig.publisher.sent == []


async def test_a_reader_may_neither_confirm_nor_flag_what_it_may_not_edit() -> None:
    """Issue 24: a flag lowers a memory's trust for every reader and a confirmation raises
    it, so each needs the node writable, like any other change."""
    rig = Rig()
    for changes in (
        MemoryChanges(pinned=True),
        MemoryChanges(clear_all_flags=True),
        MemoryChanges(add_flag=FLAG),
        MemoryChanges(add_flag=FLAG, confirm=True),
        MemoryChanges(confirm=True),
    ):
        with pytest.raises(NotAllowed, match="global"):
            await rig.update(TEAM_MEMBER, mid(1), changes, wait="persisted")
    assert rig.publisher.sent == []
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(confirm=True), wait="accepted")
    assert outcome.memory.curation.confirmations == 1


async def test_a_writer_flags() -> None:
    rig = Rig()
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(add_flag=FLAG), wait="accepted")
    [flag] = outcome.memory.curation.flags
    assert (flag.id, flag.kind.value, flag.flagged_by) == (outcome.change_id, "outdated", "u1")
    assert rig.command().changes.flag_reason == FLAG.reason


async def test_viewers_and_unknown_memories_are_refused() -> None:
    rig = Rig()
    with pytest.raises(NotAllowed):
        await rig.update(VIEWER, mid(1), MemoryChanges(confirm=True), wait="persisted")
    with pytest.raises(NotFound):
        await rig.update(MEMBER, mid(9), MemoryChanges(confirm=True), wait="persisted")
    assert rig.publisher.sent == []


async def test_a_new_body_is_embedded_once_and_its_vector_travels() -> None:
    rig = Rig((1, 0.99))  # the memory itself is its own nearest neighbour: not a conflict
    body = "Release trains leave every Wednesday"
    outcome = await rig.update(MEMBER, mid(1), MemoryChanges(body=body), wait="accepted")
    assert rig.embedder.texts == [body]
    command = rig.command()
    assert (command.changes.body, command.changes.embedding.model) == (body, "fake-embedder")
    assert list(command.changes.embedding.values) == [1.0, 0.0, 0.0]
    assert outcome.memory.curation.corrections == 1


async def test_a_body_that_duplicates_another_memory_is_refused_unless_forced() -> None:
    rig = Rig((2, 0.9))
    rig.store.put(memory(2, body="Release trains leave every Wednesday"))
    changes = MemoryChanges(body="Release trains leave each Wednesday")
    with pytest.raises(NearDuplicates) as refused:
        await rig.update(MEMBER, mid(1), changes, wait="accepted")
    assert [s.memory.id for s in refused.value.similar] == [mid(2)]
    assert rig.publisher.sent == []
    forced = await rig.update(MEMBER, mid(1), changes, wait="accepted", force=True)
    assert forced.status == "accepted" and len(rig.publisher.sent) == 1


async def test_other_changes_are_not_embedded() -> None:
    rig = Rig()
    await rig.update(MEMBER, mid(1), MemoryChanges(importance=0.9), wait="accepted")
    assert rig.embedder.texts == []
    assert not rig.command().changes.HasField("embedding")


def test_a_confirmation_alone_is_confirm_a_flag_is_flag_the_rest_update() -> None:
    assert change_action(MemoryChanges(confirm=True)) is Action.CONFIRM
    assert change_action(MemoryChanges(add_flag=FLAG)) is Action.FLAG
    assert change_action(MemoryChanges(add_flag=FLAG, confirm=True)) is Action.FLAG
    assert change_action(MemoryChanges()) is Action.UPDATE
    assert change_action(MemoryChanges(add_flag=FLAG, importance=0.9)) is Action.UPDATE
    assert change_action(MemoryChanges(clear_flag_ids=("x",))) is Action.UPDATE
