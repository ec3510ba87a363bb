"""A LinkMemories command applied record by record (issue 25): the classifier links a new
memory to its neighbours in one command, so every end is read once and each record written
once, however many of the command's edges it holds; a record written in between is re-read
alone; a bad edge is rejected without blocking the good ones; a redelivery writes nothing."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from memhive.v1 import edges_pb2
from memhive_contracts.mapping import to_timestamp
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import forget
from memhive_ingest.link_memories import LinkMemoriesHandler
from memhive_ports.poison import Poison

from tests.fakes import FakePublisher, FakeStore
from tests.unit.query.memories import NOW, memory, mid

NEW, NEIGHBOURS, OUTSIDER = 1, (2, 3, 4, 5, 6), 7


def world(*numbers: int) -> tuple[FakeStore, FakePublisher]:
    store = FakeStore()
    for n in numbers:
        store.put(memory(n))
    return store, FakePublisher()


def link(*dst_ids: str, command_id: str = "l1") -> edges_pb2.LinkMemories:
    """What the classifier sends for a new memory: one related_to guess per neighbour."""
    edges = [
        edges_pb2.Edge(
            src_id=mid(NEW), dst_id=dst, kind=edges_pb2.EDGE_KIND_RELATED_TO, weight=0.8,
            rationale="near duplicate", creator_kind=edges_pb2.CREATOR_KIND_CLASSIFIER,
        )
        for dst in dst_ids
    ]  # fmt: skip
    return edges_pb2.LinkMemories(
        command_id=command_id, workspace_id="ws", edges=edges, requested_by="classifier",
        requested_at=to_timestamp(NOW),
    )  # fmt: skip


def revisions(store: FakeStore) -> dict[str, int]:
    return {memory_id: stored.revision for (_, memory_id), stored in store.rows.items()}


def written(store: FakeStore, before: dict[str, int]) -> dict[str, int]:
    """How many writes each record took since `before` (the fake counts one revision each)."""
    return {m: revision - before[m] for m, revision in revisions(store).items()}


def edge_keys(store: FakeStore, n: int) -> set[tuple[str, str]]:
    return {(e.src_id, e.dst_id) for e in store.rows[("ws", mid(n))].edges}


def announced(publisher: FakePublisher) -> edges_pb2.MemoriesLinked:
    [(_, event, _)] = publisher.sent[-1:]
    return event


async def test_five_edges_of_one_command_read_every_end_once_and_write_each_record_once() -> None:
    store, publisher = world(NEW, *NEIGHBOURS)
    before = revisions(store)

    await LinkMemoriesHandler(store, publisher)("ws", link(*map(mid, NEIGHBOURS)))

    assert store.reads == [[mid(n) for n in (NEW, *NEIGHBOURS)]] and store.gets == []
    assert written(store, before) == {mid(n): 1 for n in (NEW, *NEIGHBOURS)}
    assert edge_keys(store, NEW) == {(mid(NEW), mid(n)) for n in NEIGHBOURS}
    assert all(edge_keys(store, n) == {(mid(NEW), mid(n))} for n in NEIGHBOURS)
    event = announced(publisher)
    assert [e.dst_id for e in event.edges] == [mid(n) for n in NEIGHBOURS]
    assert {e.creator_kind for e in event.edges} == {edges_pb2.CREATOR_KIND_CLASSIFIER}
    assert list(event.rejected) == []


class WrittenInBetween(FakeStore):
    """Someone else links neighbour 3 to an outsider just after the command's first read,
    so the command's write of 3 finds it changed."""

    async def get_many(self, workspace_id: str, memory_ids: Sequence[str]):
        found = await super().get_many(workspace_id, memory_ids)
        if len(self.reads) == 1:
            current = self.rows[(workspace_id, mid(3))]
            theirs = Edge(mid(3), mid(OUTSIDER), EdgeKind.RELATED_TO, 1.0, "u1",
                          CreatorKind.AGENT, "", NOW)  # fmt: skip
            await self.replace(current, current.memory, "theirs", (*current.edges, theirs))
        return found


async def test_a_record_written_in_between_is_read_again_alone_and_keeps_both_writes() -> None:
    store, publisher = WrittenInBetween(), FakePublisher()
    for n in (NEW, *NEIGHBOURS, OUTSIDER):
        store.put(memory(n))
    before = revisions(store)

    await LinkMemoriesHandler(store, publisher)("ws", link(*map(mid, NEIGHBOURS)))

    assert store.reads == [[mid(n) for n in (NEW, *NEIGHBOURS)], [mid(3)]]
    assert written(store, before) == {mid(n): 1 for n in (NEW, 2, 4, 5, 6)} | {
        mid(3): 2,  # theirs, then ours
        mid(OUTSIDER): 0,
    }
    assert edge_keys(store, 3) == {(mid(3), mid(OUTSIDER)), (mid(NEW), mid(3))}
    assert edge_keys(store, NEW) == {(mid(NEW), mid(n)) for n in NEIGHBOURS}  # none doubled
    assert len(store.rows[("ws", mid(NEW))].edges) == len(NEIGHBOURS)
    assert len(announced(publisher).edges) == len(NEIGHBOURS)


async def test_a_record_that_keeps_changing_gives_up_for_a_redelivery() -> None:
    store, publisher = world(NEW, *NEIGHBOURS)
    store.conflicts_to_raise = 1_000

    with pytest.raises(ConcurrentUpdate, match="kept changing"):
        await LinkMemoriesHandler(store, publisher)("ws", link(*map(mid, NEIGHBOURS)))
    assert publisher.sent == []


async def test_bad_edges_are_rejected_by_index_and_the_good_ones_written_once() -> None:
    store, publisher = world(NEW, 2, 3, 5)
    store.put(forget(memory(4), NOW))
    before = revisions(store)
    command = link(mid(2), mid(NEW), mid(99), mid(3), mid(4), mid(5))

    with pytest.raises(Poison) as raised:
        await LinkMemoriesHandler(store, publisher)("ws", command)

    event = announced(publisher)
    assert [e.dst_id for e in event.edges] == [mid(2), mid(3), mid(5)]
    assert [r.split(" (")[0] for r in event.rejected] == ["edge 1", "edge 2", "edge 4"]
    assert "no memory links itself" in event.rejected[0] and "forgotten" in event.rejected[2]
    assert str(raised.value) == "; ".join(event.rejected)
    assert written(store, before) == {mid(NEW): 1, mid(2): 1, mid(3): 1, mid(4): 0, mid(5): 1}
    assert store.reads == [[mid(NEW), mid(2), mid(99), mid(3), mid(4), mid(5)]]


async def test_a_redelivered_command_reads_once_writes_nothing_and_announces_no_edge() -> None:
    store, publisher = world(NEW, *NEIGHBOURS)
    handler, command = LinkMemoriesHandler(store, publisher), link(*map(mid, NEIGHBOURS))
    await handler("ws", command)
    store.reads.clear()
    before = revisions(store)

    await handler("ws", command)

    assert store.reads == [[mid(n) for n in (NEW, *NEIGHBOURS)]]
    assert written(store, before) == {m: 0 for m in before}
    assert list(announced(publisher).edges) == [] and len(publisher.sent) == 2


async def test_a_redelivery_after_an_end_was_forgotten_is_not_rejected() -> None:
    """An edge both ends already hold is not checked again: it writes nothing."""
    store, publisher = world(NEW, 2)
    handler = LinkMemoriesHandler(store, publisher)
    await handler("ws", link(mid(2)))
    stored = store.rows[("ws", mid(2))]
    await store.replace(stored, forget(stored.memory, NOW), "f1")

    await handler("ws", link(mid(2)))

    assert list(announced(publisher).rejected) == []
