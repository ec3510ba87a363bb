"""The gateway's audited use cases over fakes: each call is recorded once it ended, with its
target and outcome (ok, denied, rejected, failed), and a failed append never fails the call."""

from __future__ import annotations

import asyncio
import logging

import pytest
from memhive_application.announcements import Announcer
from memhive_domain.audit import AuditAction, Outcome
from memhive_domain.changes import MemoryChanges
from memhive_domain.curation import FlagDraft
from memhive_domain.edges import EdgeDraft
from memhive_domain.errors import NotAllowed
from memhive_domain.memory import MemoryDraft
from memhive_domain.principals import Principal
from memhive_ports import LaneHit
from memhive_query.use_cases.audit import (
    AuditedDeadLetters,
    AuditedForget,
    AuditedLink,
    AuditedSave,
    AuditedUpdate,
    gateway_trail,
)
from memhive_query.use_cases.conflicts import ConflictCheck, NearDuplicates
from memhive_query.use_cases.dead_letters import WorkspaceDeadLetters
from memhive_query.use_cases.identical import IdenticalSaves
from memhive_query.use_cases.link import EdgeCommands, LinkMemories
from memhive_query.use_cases.memories import ForgetMemory, MemoryReader
from memhive_query.use_cases.save import SaveMemory
from memhive_query.use_cases.update import UpdateMemory

from tests.fakes import (
    FakeAuditLog,
    FakeDeadLetters,
    FakeEmbedder,
    FakeLexicalIndex,
    FakePublisher,
    FakeStore,
    FakeVectorIndex,
    FakeWaiter,
    FixedClock,
)
from tests.unit.query.memories import NOW, VIEWER, memory, mid

MEMBER = Principal("ws", "u1", credential="token:0123456789abcdef")
BODY = "Release trains leave every other Tuesday"


class Rig:
    def __init__(self, *similar: tuple[int, float]) -> None:
        self.store, self.publisher, self.log = FakeStore(), FakePublisher(), FakeAuditLog()
        clock, waiter = FixedClock(NOW), FakeWaiter()
        self.trail = gateway_trail(self.log, clock)
        vector = FakeVectorIndex([LaneHit(mid(n), s) for n, s in similar])
        reader = MemoryReader(self.store, FakeLexicalIndex(), clock)
        edges = EdgeCommands(self.publisher, waiter, 1.0)
        conflicts = ConflictCheck(vector, self.store, 0.85)
        identical = IdenticalSaves(self.store, waiter)
        save = SaveMemory(
            FakeEmbedder(), Announcer(self.publisher), identical, waiter, clock, 1.0,
            conflicts=conflicts, edges=edges,
        )  # fmt: skip
        self.save = AuditedSave(save, self.trail)
        self.forget = AuditedForget(
            ForgetMemory(reader, self.publisher, waiter, clock, 1.0), self.trail
        )
        self.update = AuditedUpdate(
            UpdateMemory(reader, self.publisher, waiter, clock, 1.0), self.trail
        )
        self.link = AuditedLink(LinkMemories(self.store, edges, clock), self.trail)
        self.store.put(memory(1))
        self.store.put(memory(2))

    def recorded(self) -> list[tuple[AuditAction, str, Outcome]]:
        return [(e.action, e.target, e.outcome) for e in self.log.entries]


async def test_a_save_is_recorded_with_the_new_memory_and_who_saved_it() -> None:
    rig = Rig()
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted")
    assert rig.recorded() == [(AuditAction.SAVE, outcome.memory.id, Outcome.OK)]
    [entry] = rig.log.entries
    assert (entry.workspace_id, entry.user_id, entry.role, entry.credential, entry.time) == (
        "ws",
        "u1",
        "member",
        "token:0123456789abcdef",
        NOW,
    )


async def test_a_near_duplicate_refusal_is_recorded_as_rejected() -> None:
    rig = Rig((1, 0.9))
    with pytest.raises(NearDuplicates):  # only a save waiting for indexed looks for them
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    [(action, target, outcome)] = rig.recorded()
    assert (action, target, outcome) == (AuditAction.SAVE, "", Outcome.REJECTED)
    assert "near-duplicates" in rig.log.entries[0].detail


async def test_a_refused_forget_is_recorded_as_denied_with_its_target() -> None:
    rig = Rig()
    with pytest.raises(NotAllowed):
        await rig.forget(VIEWER, mid(1), "persisted")
    await rig.forget(MEMBER, mid(2), "persisted", reason="wrong")
    assert rig.recorded() == [
        (AuditAction.FORGET, mid(1), Outcome.DENIED),
        (AuditAction.FORGET, mid(2), Outcome.OK),
    ]


async def test_a_verdict_is_recorded_as_a_flag_any_other_change_as_an_update() -> None:
    rig = Rig()
    flag = MemoryChanges(add_flag=FlagDraft("wrong", "not true"))
    await rig.update(MEMBER, mid(1), flag, wait="persisted")
    await rig.update(MEMBER, mid(1), MemoryChanges(importance=0.9), wait="persisted")
    assert rig.recorded() == [
        (AuditAction.FLAG, mid(1), Outcome.OK),
        (AuditAction.UPDATE, mid(1), Outcome.OK),
    ]


async def test_a_link_is_recorded_with_both_ends() -> None:
    rig = Rig()
    await rig.link(MEMBER, EdgeDraft(mid(1), mid(2), "related_to"))
    assert rig.recorded() == [(AuditAction.LINK, f"{mid(1)}->{mid(2)}", Outcome.OK)]


async def test_a_dead_letter_listing_is_recorded_with_the_consumer() -> None:
    log = FakeAuditLog()
    letters = AuditedDeadLetters(
        WorkspaceDeadLetters(FakeDeadLetters()), gateway_trail(log, FixedClock(NOW))
    )
    await letters(MEMBER, "ingest", 10)
    await letters(MEMBER, None, 10)
    assert [(e.action, e.target) for e in log.entries] == [
        (AuditAction.DEAD_LETTERS_LIST, "ingest"),
        (AuditAction.DEAD_LETTERS_LIST, ""),
    ]


async def test_an_unexpected_failure_is_recorded_by_its_type_and_raised() -> None:
    rig = Rig()
    rig.publisher.failure = ConnectionError("bus down")
    with pytest.raises(ConnectionError):
        await rig.forget(MEMBER, mid(1), "persisted")
    assert rig.recorded() == [(AuditAction.FORGET, mid(1), Outcome.FAILED)]
    assert rig.log.entries[0].detail == "ConnectionError"


async def test_a_failed_append_is_logged_and_the_call_still_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rig = Rig()
    rig.log.failure = ConnectionError("audit stream down")
    with caplog.at_level(logging.ERROR, logger="memhive_application.audit_trail"):
        assert await rig.forget(MEMBER, mid(1), "persisted") == "forgotten"
    assert "could not append audit entry" in caplog.text
    assert len(rig.publisher.sent) == 1  # the action itself happened


class HeldWaiter(FakeWaiter):
    """The wait for `indexed` lasts until the test ends it, then the event arrives or the
    wait fails (`failure`)."""

    def __init__(self, failure: Exception | None = None) -> None:
        super().__init__()
        self.release, self.failure = asyncio.Event(), failure

    async def event(self, future, timeout_s: float):
        await self.release.wait()
        if self.failure is not None:
            raise self.failure
        return await super().event(future, timeout_s)


class HeldAuditLog(FakeAuditLog):
    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def append(self, entry) -> None:
        await self.release.wait()
        await super().append(entry)


def held_save(waiter: FakeWaiter, log: FakeAuditLog) -> tuple[AuditedSave, FakePublisher]:
    publisher, clock = FakePublisher(), FixedClock(NOW)
    identical = IdenticalSaves(FakeStore(), waiter)
    save = SaveMemory(FakeEmbedder(), Announcer(publisher), identical, waiter, clock, 1.0)
    return AuditedSave(save, gateway_trail(log, clock)), publisher


async def turns(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_a_saves_entry_is_appended_once_it_is_announced_not_after_the_wait() -> None:
    waiter, log = HeldWaiter(), FakeAuditLog()
    save, publisher = held_save(waiter, log)
    saving = asyncio.ensure_future(save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed"))
    await turns()
    [(_, command, _)] = publisher.sent
    assert [(e.action, e.target, e.outcome) for e in log.entries] == [
        (AuditAction.SAVE, command.memory.id, Outcome.OK)
    ]
    assert not saving.done()  # still waiting for MemoryIndexed
    waiter.release.set()
    assert (await saving).status == "indexed"
    assert len(log.entries) == 1  # not appended twice


class HeldPublisher(FakePublisher):
    """MemorySaved's publish lasts until the test ends it."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def publish(self, subject: str, message, *, msg_id: str) -> None:
        await self.release.wait()
        await super().publish(subject, message, msg_id=msg_id)


async def test_a_saves_entry_is_appended_once_its_record_exists_beside_the_announcement() -> None:
    """The record is the save's durable write: its entry is appended from there, while
    MemorySaved is published, not after it (one round trip fewer before a `persisted`
    answer)."""
    publisher, log, clock, store = HeldPublisher(), FakeAuditLog(), FixedClock(NOW), FakeStore()
    identical = IdenticalSaves(store, FakeWaiter())
    save = AuditedSave(
        SaveMemory(FakeEmbedder(), Announcer(publisher), identical, FakeWaiter(), clock, 1.0),
        gateway_trail(log, clock),
    )
    saving = asyncio.ensure_future(save(MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted"))
    await turns()
    [(_, memory_id)] = store.rows
    assert [(e.action, e.target, e.outcome) for e in log.entries] == [
        (AuditAction.SAVE, memory_id, Outcome.OK)
    ]
    assert publisher.sent == [] and not saving.done()  # MemorySaved still on its way
    publisher.release.set()
    assert (await saving).status == "persisted" and len(log.entries) == 1


async def test_the_answer_waits_for_the_entry_appended_early() -> None:
    waiter, log = HeldWaiter(), HeldAuditLog()
    save, _ = held_save(waiter, log)
    waiter.release.set()
    saving = asyncio.ensure_future(save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed"))
    await turns()
    assert not saving.done() and log.entries == []
    log.release.set()
    assert (await saving).status == "indexed" and len(log.entries) == 1


async def test_a_failure_after_the_save_is_announced_keeps_its_ok_entry() -> None:
    """What the entry records, the save, happened: the wait that failed after it is not
    the save's outcome (and a second entry would count the save twice)."""
    waiter, log = HeldWaiter(ConnectionError("bus gone")), FakeAuditLog()
    save, publisher = held_save(waiter, log)
    waiter.release.set()
    with pytest.raises(ConnectionError):
        await save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    [(_, command, _)] = publisher.sent
    assert [(e.action, e.target, e.outcome) for e in log.entries] == [
        (AuditAction.SAVE, command.memory.id, Outcome.OK)
    ]
