from __future__ import annotations

from dataclasses import dataclass

import pytest
from memhive.v1 import events_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts.codec import UndecodableMessage, encode
from memhive_contracts.mapping import memory_to_pb
from memhive_domain.scopes import Scope, ScopeRef
from memhive_link_classifier.subscribers import MemoryIndexedSubscriber
from memhive_ports.poison import Poison

from tests.unit.link_classifier.fakes import memory, with_revision

SUBJECT = "memhive.evt.memory.indexed.ws-1"


@dataclass
class Msg:
    subject: str
    data: bytes


class Recorder:
    def __init__(self) -> None:
        self.seen: list = []

    async def __call__(self, indexed) -> list:
        self.seen.append(indexed)
        return []


def indexed_event(values: list[float], event_id: str = "e-1") -> bytes:
    indexed = with_revision(memory("m-1", "Trains leave on Tuesdays", product_id="app"), 3)
    event = events_pb2.MemoryIndexed(
        event_id=event_id,
        memory=memory_to_pb(indexed),
        embedding=pb.Embedding(model="minilm", values=values),
    )
    return encode(event)


async def test_each_event_becomes_one_request_with_its_vector() -> None:
    link = Recorder()

    await MemoryIndexedSubscriber(link).handle_batch([Msg(SUBJECT, indexed_event([0.5, 0.25]))])

    [request] = link.seen
    assert (request.event_id, request.workspace_id, request.memory_id, request.revision) == (
        "e-1", "ws-1", "m-1", 3,
    )  # fmt: skip
    assert list(request.vector) == [0.5, 0.25]
    assert request.scope == ScopeRef(Scope.PRODUCT, "app")  # its neighbours are looked for there


async def test_memories_indexed_together_become_one_request_each_in_order() -> None:
    events = [
        events_pb2.MemoryIndexed(
            event_id=f"e-{n}",
            memory=memory_to_pb(memory(f"m-{n}", f"Trains leave on day {n}")),
            embedding=pb.Embedding(model="minilm", values=[float(n), 1.0]),
        )
        for n in range(3)
    ]
    together = encode(events_pb2.MemoriesIndexed(event_id="t", indexed=events))
    link = Recorder()

    subject = "memhive.evt.memory.indexed_batch.ws-1"
    await MemoryIndexedSubscriber(link).handle_batch([Msg(subject, together)])

    assert [(r.event_id, r.memory_id, r.workspace_id) for r in link.seen] == [
        (f"e-{n}", f"m-{n}", "ws-1") for n in range(3)
    ]
    assert [list(r.vector) for r in link.seen] == [[float(n), 1.0] for n in range(3)]


class SideBySide:
    """Notes each group linked side by side; fails the one holding `failing`."""

    def __init__(self, failing: str | None = None) -> None:
        self.groups: list[list[str]] = []
        self._failing = failing

    async def side_by_side(self, batch) -> None:
        self.groups.append([i.memory_id for i in batch])
        if self._failing in self.groups[-1]:
            raise RuntimeError("the lane fell over")


def together(*memory_ids: str) -> Msg:
    events = [
        events_pb2.MemoryIndexed(
            event_id=f"e-{m}",
            memory=memory_to_pb(memory(m, f"memory {m}")),
            embedding=pb.Embedding(model="minilm", values=[1.0, 0.0]),
        )
        for m in memory_ids
    ]
    event = events_pb2.MemoriesIndexed(event_id="t", indexed=events)
    return Msg("memhive.evt.memory.indexed_batch.ws-1", encode(event))


async def test_memories_of_several_messages_are_linked_in_groups_of_at_most_at_once() -> None:
    link = SideBySide()
    handle = MemoryIndexedSubscriber(link, side_by_side=True, at_once=3).handle_batch  # type: ignore[arg-type]
    await handle([together("a", "b"), together("c", "d", "e"), Msg(SUBJECT, indexed_event([1.0]))])
    assert link.groups == [["a", "b", "c"], ["d", "e", "m-1"]]


async def test_a_group_that_fails_leaves_the_others_linked_then_fails_the_batch() -> None:
    link = SideBySide(failing="b")
    handle = MemoryIndexedSubscriber(link, side_by_side=True, at_once=2).handle_batch  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="fell over"):
        await handle([together("a", "b", "c", "d", "e")])
    assert link.groups == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize(
    ("msg", "error"),
    [
        (Msg(SUBJECT, indexed_event([])), Poison),
        (Msg("memhive.evt.memory.saved.ws-1", indexed_event([0.1])), Poison),
        (Msg(SUBJECT, b"\xff\xfe not protobuf"), UndecodableMessage),
    ],
)
async def test_events_that_can_never_be_linked_are_poison(msg: Msg, error: type) -> None:
    with pytest.raises(error):
        await MemoryIndexedSubscriber(Recorder()).handle_batch([msg])


class BatchRecorder(Recorder):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list = []

    async def side_by_side(self, batch) -> None:
        self.batches.append(batch)


async def test_without_an_llm_a_batch_is_handed_over_whole_and_with_one_one_at_a_time() -> None:
    msgs = [
        Msg(SUBJECT, indexed_event([0.5, 0.25])),
        Msg(SUBJECT, indexed_event([0.75, 0.5], event_id="e-2")),
    ]
    together, in_turn = BatchRecorder(), BatchRecorder()

    await MemoryIndexedSubscriber(together, side_by_side=True).handle_batch(msgs)
    await MemoryIndexedSubscriber(in_turn).handle_batch(msgs)

    [batch] = together.batches
    assert [list(i.vector) for i in batch] == [[0.5, 0.25], [0.75, 0.5]] and together.seen == []
    assert len(in_turn.seen) == 2 and in_turn.batches == []


class FailsOnce(Recorder):
    """Asked about each memory in turn; the first question about `failing` fails."""

    def __init__(self, failing: str) -> None:
        super().__init__()
        self._failing: str | None = failing

    async def __call__(self, indexed) -> list:
        self.seen.append(indexed.memory_id)
        if indexed.memory_id == self._failing:
            self._failing = None
            raise RuntimeError("the model timed out")
        return []


async def test_a_message_failed_part_way_asks_only_from_the_failure_on() -> None:
    link = FailsOnce(failing="c")
    handle = MemoryIndexedSubscriber(link).handle_batch  # type: ignore[arg-type]
    msg = together("a", "b", "c", "d")

    with pytest.raises(RuntimeError, match="timed out"):
        await handle([msg])
    await handle([msg])  # retried alone, or delivered again
    await handle([msg])  # after its ack was lost: nothing asked again

    assert link.seen == ["a", "b", "c", "c", "d"]


async def test_the_memories_linked_are_remembered_within_a_bound() -> None:
    link = Recorder()
    handle = MemoryIndexedSubscriber(link, linked_kept=2).handle_batch  # type: ignore[arg-type]

    await handle([together("a", "b", "c")])
    await handle([together("b", "c")])  # the latest two are kept
    await handle([together("a")])  # the oldest was let go

    assert [i.memory_id for i in link.seen] == ["a", "b", "c", "a"]
