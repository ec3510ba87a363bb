"""The upstream use case over in-memory fakes of the record and the bus: what it writes and
announces for creates, revisions, replays, late updates, crashes and shrinking snapshots."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from memhive.v1 import events_pb2
from memhive_domain.upstream import (
    IssueCreated,
    IssueUpdated,
    KeyFile,
    KnowledgeSnapshot,
    upstream_memory_id,
)
from memhive_ingest.upstream_events import UpstreamEventHandler, knowledge_ref_base

from tests.fakes import FakePublisher, FakeStore, FixedClock

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=1)


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def bus() -> FakePublisher:
    return FakePublisher()


@pytest.fixture
def handler(store: FakeStore, bus: FakePublisher) -> UpstreamEventHandler:
    return UpstreamEventHandler(store, bus, FixedClock(NOW))


def issue(event_id: str, minutes: int, status: str = "open", cls=IssueUpdated):
    return cls(
        event_id=event_id,
        workspace_id="acme",
        issue_id="PROJ-1",
        title="Login fails",
        description="",
        status=status,
        labels=(),
        product_id=None,
        author="jane",
        occurred_at=T0 + timedelta(minutes=minutes),
    )


def snapshot(event_id: str, minutes: int, notes: tuple[str, ...], key_files=()):
    return KnowledgeSnapshot(
        event_id=event_id,
        workspace_id="acme",
        snapshot_id=event_id,
        product_id="web",
        architecture_notes=notes,
        key_files=key_files,
        conventions=(),
        procedures=(),
        occurred_at=T0 + timedelta(minutes=minutes),
    )


ISSUE_ID = upstream_memory_id("acme", "issue:PROJ-1")


def note_id(n: int) -> str:
    return upstream_memory_id("acme", f"{knowledge_ref_base('web')}:architecture:{n}")


def saved(bus: FakePublisher) -> list[events_pb2.MemorySaved]:
    return [m for _, m, _ in bus.sent if isinstance(m, events_pb2.MemorySaved)]


def forgotten(bus: FakePublisher) -> list[events_pb2.MemoryForgotten]:
    return [m for _, m, _ in bus.sent if isinstance(m, events_pb2.MemoryForgotten)]


async def test_create_then_revise_announces_each_revision(handler, store, bus) -> None:
    decisions = await handler([issue("e1", 0, cls=IssueCreated), issue("e2", 5, "closed")])
    assert decisions == ["create", "revise"]
    memory = store.rows[("acme", ISSUE_ID)].memory
    assert (memory.revision, memory.body) == (2, "Issue PROJ-1: Login fails — closed.")
    assert [(e.memory.revision, e.command_id) for e in saved(bus)] == [
        (1, "upstream:e1"),
        (2, "upstream:e2"),
    ]
    assert [msg_id for *_, msg_id in bus.sent] == [f"e1:{ISSUE_ID}:saved", f"e2:{ISSUE_ID}:saved"]


async def test_a_replay_and_a_late_older_update_change_nothing(handler, store, bus) -> None:
    await handler([issue("e1", 0), issue("e3", 10, "closed")])
    assert await handler([issue("e3", 10, "closed"), issue("e2", 5, "in progress")]) == [
        "unchanged",
        "stale",
    ]
    memory = store.rows[("acme", ISSUE_ID)].memory
    assert (memory.revision, memory.body) == (2, "Issue PROJ-1: Login fails — closed.")
    # The replay of the last writer re-announces (it cannot tell a crash from a replay) under
    # the same msg id, which the stream stores once; the late update announces nothing.
    assert [msg_id for *_, msg_id in bus.sent] == [
        f"e1:{ISSUE_ID}:saved",
        f"e3:{ISSUE_ID}:saved",
        f"e3:{ISSUE_ID}:saved",
    ]


async def test_a_redelivery_after_a_crash_announces_the_write_again(handler, store, bus) -> None:
    await handler([issue("e1", 0)])
    bus.sent.clear()  # as if the process died between the write and the announcement
    assert await handler([issue("e1", 0)]) == ["unchanged"]
    assert [e.memory.revision for e in saved(bus)] == [1]


async def test_a_concurrent_write_is_re_read_and_retried(handler, store, bus) -> None:
    await handler([issue("e1", 0)])
    store.conflicts_to_raise = 2
    assert await handler([issue("e2", 5, "closed")]) == ["revise"]
    assert store.rows[("acme", ISSUE_ID)].memory.revision == 2


async def test_a_shorter_snapshot_forgets_the_leftover_entries(handler, store, bus) -> None:
    files = (KeyFile("Makefile", "targets"),)
    await handler([snapshot("s1", 0, ("one", "two", "three"), files)])
    await handler([snapshot("s2", 5, ("one, revised",))])
    rows = {n: store.rows[("acme", note_id(n))].memory for n in (1, 2, 3)}
    assert [(rows[n].forgotten, rows[n].revision) for n in (1, 2, 3)] == [
        (False, 2),
        (True, 2),
        (True, 2),
    ]
    key_files = upstream_memory_id("acme", f"{knowledge_ref_base('web')}:key-files")
    assert store.rows[("acme", key_files)].memory.forgotten
    assert sorted(e.memory.id for e in forgotten(bus)) == sorted(
        [note_id(2), note_id(3), key_files]
    )
    assert {e.command_id for e in forgotten(bus)} == {"upstream:s2"}


async def test_an_older_shorter_snapshot_arriving_late_forgets_nothing(handler, store, bus) -> None:
    await handler([snapshot("s2", 5, ("one", "two"))])
    await handler([snapshot("s1", 0, ("one",))])
    assert not store.rows[("acme", note_id(2))].memory.forgotten
    assert forgotten(bus) == []


async def test_forgetting_leftovers_twice_announces_once_per_write(handler, store, bus) -> None:
    await handler([snapshot("s1", 0, ("one", "two"))])
    await handler([snapshot("s2", 5, ("one",))])
    before = store.rows[("acme", note_id(2))]
    await handler([snapshot("s2", 5, ("one",))])  # redelivered: re-announced, not re-written
    assert store.rows[("acme", note_id(2))] == before
    assert [e.event_id for e in forgotten(bus)] == [f"s2:{note_id(2)}:forgotten"] * 2
