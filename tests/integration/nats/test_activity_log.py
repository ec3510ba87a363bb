"""JetStreamActivityLog against a real nats-server: the log's memory events and the recall
activity merged newest first, one workspace only, kinds selected on the server, and reads
bounded in span that resume without a gap or a repeat."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from memhive.v1 import edges_pb2, events_pb2
from memhive_adapters.nats.activity_log import JetStreamActivityLog
from memhive_contracts import subjects
from memhive_contracts.edge_mapping import edge_to_pb
from memhive_contracts.mapping import memory_to_pb
from memhive_domain.activity import ActivityKind, ActivityPosition
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from nats.js import JetStreamContext

from tests.unit.domain.memory_factory import a_memory

AT = datetime(2026, 5, 1, tzinfo=UTC)
EVERYTHING = frozenset(ActivityKind)


async def publish_story(js: JetStreamContext, ws: str) -> list[str]:
    """Saved, recalled, updated, linked, forgotten, recalled: alternating streams. Returns
    what each event is, in publishing order; another workspace's noise between them."""
    first = a_memory("m1", at=AT, workspace_id=ws, created_by="ada")
    second = a_memory("m2", at=AT, workspace_id=ws)
    edge = Edge("m2", "m1", EdgeKind.UPDATES, 1.0, "eve", CreatorKind.AGENT, "", AT)
    story = [
        ("saved:m1", subjects.MEMORY_SAVED, events_pb2.MemorySaved(memory=memory_to_pb(first))),
        ("recalled:m1", subjects.MEMORIES_RECALLED, recall(ws, "ada", "m1")),
        (
            "updated:m1",
            subjects.MEMORY_SAVED,
            events_pb2.MemorySaved(
                memory=memory_to_pb(replace(first, revision=2)), requested_by="bob"
            ),
        ),
        ("saved:m2", subjects.MEMORY_SAVED, events_pb2.MemorySaved(memory=memory_to_pb(second))),
        ("linked:m2", subjects.MEMORIES_LINKED, edges_pb2.MemoriesLinked(edges=[edge_to_pb(edge)])),
        (
            "forgotten:m1",
            subjects.MEMORY_FORGOTTEN,
            events_pb2.MemoryForgotten(memory=memory_to_pb(first), requested_by="ada", reason="x"),
        ),
        ("recalled:m2", subjects.MEMORIES_RECALLED, recall(ws, "bob", "m2")),
    ]
    for _name, root, message in story:
        await js.publish(subjects.for_workspace(root, ws), message.SerializeToString())
        await js.publish(subjects.for_workspace(root, f"{ws}-other"), message.SerializeToString())
    return [name for name, _, _ in story]


def recall(ws: str, who: str, memory_id: str) -> events_pb2.MemoriesRecalled:
    return events_pb2.MemoriesRecalled(
        workspace_id=ws, principal_id=who, query="q", memory_ids=[memory_id]
    )


def named(event) -> str:
    target = event.memory.id if event.memory else (event.edges or [None])[0]
    target = target.src_id if isinstance(target, Edge) else target or event.memory_ids[0]
    return f"{event.kind.value}:{target}"


@pytest.fixture
def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:10]}"


async def test_both_streams_merged_newest_first_for_one_workspace(
    js: JetStreamContext, ws: str
) -> None:
    story = await publish_story(js, ws)
    reading = JetStreamActivityLog(js).newest_first(ws, EVERYTHING, ActivityPosition())

    events = [e async for e in reading]

    assert [named(e) for e in events] == story[::-1]
    assert reading.resume is None  # read to the start of both streams
    # who asked: the event's requested_by, else a save's creator, an edge's, a recall's
    assert [e.actor for e in events] == ["bob", "ada", "eve", "u1", "bob", "ada", "ada"]


async def test_kinds_are_selected_on_the_server(js: JetStreamContext, ws: str) -> None:
    await publish_story(js, ws)
    log = JetStreamActivityLog(js)

    only_recalls = [
        named(e)
        async for e in log.newest_first(ws, frozenset({ActivityKind.RECALLED}), ActivityPosition())
    ]
    forgotten = [
        named(e)
        async for e in log.newest_first(ws, frozenset({ActivityKind.FORGOTTEN}), ActivityPosition())
    ]

    assert only_recalls == ["recalled:m2", "recalled:m1"]
    assert forgotten == ["forgotten:m1"]


async def test_bounded_reads_resume_without_a_gap_or_a_repeat(
    js: JetStreamContext, ws: str
) -> None:
    story = await publish_story(js, ws)
    log = JetStreamActivityLog(js, max_span=3)
    seen, start, reads = [], ActivityPosition(), 0
    while start is not None and reads < 100:
        reading = log.newest_first(ws, EVERYTHING, start)
        seen += [named(e) async for e in reading]
        start, reads = reading.resume, reads + 1

    assert seen == story[::-1]
    assert reads > 2  # it did stop early along the way


async def test_a_read_can_resume_after_any_event(js: JetStreamContext, ws: str) -> None:
    story = await publish_story(js, ws)
    log = JetStreamActivityLog(js)
    events = [e async for e in log.newest_first(ws, EVERYTHING, ActivityPosition())]

    for n, event in enumerate(events):
        rest = [named(e) async for e in log.newest_first(ws, EVERYTHING, event.resume)]
        assert rest == story[::-1][n + 1 :]
