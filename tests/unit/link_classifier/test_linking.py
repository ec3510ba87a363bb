from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest
from memhive.v1 import edges_pb2
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.memory import forget
from memhive_domain.scopes import Scope, ScopeRef, Visibility
from memhive_link_classifier.fallback import NearDuplicateClassifier
from memhive_link_classifier.linking import IndexedMemory, LinkNewMemory
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_link_classifier.near_duplicate_groups import NearDuplicateGroups
from memhive_ports import EdgeProposal, LaneHit

from tests.fakes import T0, FakePublisher, FakeStore, FakeVectorIndex, FixedClock
from tests.unit.link_classifier.fakes import WORKSPACE, Metrics, memory

NEW = memory("new", "Release trains leave every other Tuesday", product_id="app", days=5)


class Rig:
    def __init__(
        self, *hits: tuple[str, float], k: int = 5, min_similarity: float | None = None
    ) -> None:
        self.store, self.publisher, self.metrics = (
            FakeStore(),
            FakePublisher(),
            Metrics.collecting(),
        )
        self.index = FakeVectorIndex([LaneHit(i, s) for i, s in hits])
        self.store.put(NEW)
        counters = ClassifierMetrics(self.metrics.provider.get_meter(METER_NAME))
        self.link = LinkNewMemory(
            self.store, self.index, NearDuplicateClassifier(0.92), self.publisher,
            FixedClock(), counters, neighbours=k, min_similarity=min_similarity,
        )  # fmt: skip

    async def run(self, revision: int = 1):
        indexed = IndexedMemory("evt-1", WORKSPACE, "new", revision, [0.1, 0.2], NEW.scope_ref)
        return await self.link(indexed)


def twin(memory_id: str, **fields):
    return memory(memory_id, "Release trains leave every 2nd Tuesday", product_id="app", **fields)


async def test_a_near_duplicate_becomes_one_link_command_from_the_classifier() -> None:
    rig = Rig(("new", 1.0), ("a", 0.95), ("b", 0.5))
    rig.store.put(twin("a"))
    rig.store.put(memory("b", "Hotfixes skip the train", product_id="app"))

    await rig.run()

    [(subject, command, msg_id)] = rig.publisher.sent
    assert subject == f"memhive.cmd.memory.link.{WORKSPACE}"
    assert (command.command_id, msg_id) == ("evt-1:link", "evt-1:link")
    assert (command.workspace_id, command.requested_by) == (WORKSPACE, "link-classifier")
    [edge] = command.edges
    assert (edge.src_id, edge.dst_id, edge.kind) == ("new", "a", edges_pb2.EDGE_KIND_RELATED_TO)
    assert (edge.creator_kind, round(edge.weight, 2)) == (edges_pb2.CREATOR_KIND_CLASSIFIER, 0.95)
    assert rig.metrics.totals() == {"edges_proposed": 1}


async def test_neighbours_are_searched_in_the_same_workspace_and_scope_one_more_than_k() -> None:
    rig = Rig(k=3)

    await rig.run()

    [(memory_filter, limit)] = rig.index.searches
    assert (memory_filter.workspace_id, memory_filter.node) == (
        WORKSPACE, ScopeRef(Scope.PRODUCT, "app"),
    )  # fmt: skip
    assert limit == 4  # the memory itself comes back too
    assert memory_filter.live_at is not None


async def test_forgotten_expired_and_already_linked_neighbours_are_left_out() -> None:
    rig = Rig(("gone", 0.99), ("linked", 0.99), ("old", 0.99))
    rig.store.put(forget(twin("gone"), T0))
    rig.store.put(twin("old", expires_at=T0 + timedelta(days=2)))
    rig.store.put(twin("linked"))
    by_agent = Edge("new", "linked", EdgeKind.UPDATES, 1.0, "agent", CreatorKind.AGENT, "", T0)
    rig.store.put(NEW, edges=(by_agent,))

    assert await rig.run() == []
    assert rig.publisher.sent == []


async def test_private_memories_of_different_authors_are_never_linked() -> None:
    rig = Rig(("theirs", 0.99), ("public", 0.99))
    rig.store.put(twin("theirs", user="someone-else"))
    rig.store.put(twin("public", user="someone-else", visibility="public"))

    assert await rig.run() == []

    rig.store.put(replace(NEW, visibility=Visibility.PUBLIC))
    assert [p.dst_id for p in await rig.run()] == ["public"]


async def test_a_memory_forgotten_or_revised_since_it_was_indexed_is_skipped() -> None:
    rig = Rig(("a", 0.99))
    rig.store.put(twin("a"))
    rig.store.put(replace(NEW, revision=2))

    assert await rig.run(revision=1) == []

    rig.store.put(forget(NEW, T0))
    assert await rig.run(revision=2) == []
    assert rig.publisher.sent == []


async def test_at_most_k_neighbours_are_classified() -> None:
    rig = Rig(("a", 0.99), ("b", 0.98), ("c", 0.97), k=2)
    for memory_id in "abc":
        rig.store.put(twin(memory_id))

    assert [p.dst_id for p in await rig.run()] == ["a", "b"]


async def test_records_are_read_once_together_and_only_with_a_neighbour_to_classify() -> None:
    """Without an LLM only near-duplicates can be linked: neighbours below the threshold
    are never read, and with none above it the new memory's record is not read either."""
    rig = Rig(("new", 1.0), ("far", 0.6), k=5, min_similarity=0.92)
    rig.store.put(memory("far", "Hotfixes skip the train", product_id="app"))

    assert await rig.run() == []
    assert (rig.store.reads, rig.store.gets) == ([], [])

    rig.index.hits.append(LaneHit("a", 0.95))
    rig.store.put(twin("a"))
    assert [p.dst_id for p in await rig.run()] == ["a"]
    assert (rig.store.reads, rig.store.gets) == ([["new", "a"]], [])


class MeetingIndex(FakeVectorIndex):
    """Answers a search only once `expected` searches are waiting at the same time."""

    def __init__(self, hits: list[LaneHit], expected: int) -> None:
        super().__init__(hits)
        self._expected, self._waiting, self._all_in = expected, 0, asyncio.Event()

    async def search(self, vector, memory_filter, limit):
        self._waiting += 1
        if self._waiting == self._expected:
            self._all_in.set()
        await asyncio.wait_for(self._all_in.wait(), timeout=5)
        return await super().search(vector, memory_filter, limit)


async def test_a_batch_side_by_side_waits_on_the_lane_for_all_its_memories_at_once() -> None:
    rig = Rig(("a", 0.95))
    rig.link._index = rig.index = MeetingIndex([LaneHit("a", 0.95)], expected=2)
    rig.store.put(twin("a"))
    other = memory("other", "Release trains leave every second Tuesday", product_id="app")
    rig.store.put(other)
    batch = [
        IndexedMemory("evt-1", WORKSPACE, "new", 1, [0.1, 0.2], NEW.scope_ref),
        IndexedMemory("evt-2", WORKSPACE, "other", 1, [0.1, 0.2], other.scope_ref),
    ]

    await rig.link.side_by_side(batch)  # one at a time, the first search would time out

    [(_, command, _)] = rig.publisher.sent
    assert [(e.src_id, e.dst_id) for e in command.edges] == [("new", "a"), ("other", "a")]


async def test_a_batch_reads_its_records_once_and_proposes_its_edges_in_one_command() -> None:
    rig = Rig(("a", 0.95), ("far", 0.5), min_similarity=0.92)
    rig.store.put(twin("a"))
    rig.store.put(memory("far", "Hotfixes skip the train", product_id="app"))
    other = memory("other", "Release trains leave every second Tuesday", product_id="app")
    rig.store.put(other)
    batch = [
        IndexedMemory("evt-1", WORKSPACE, "new", 1, [0.1, 0.2], NEW.scope_ref),
        IndexedMemory("evt-2", WORKSPACE, "other", 1, [0.1, 0.2], other.scope_ref),
    ]

    await rig.link.side_by_side(batch)
    await rig.link.side_by_side(batch)  # delivered again

    assert rig.store.reads == [["new", "a", "other"]] * 2  # never "far": below the threshold
    first, again = rig.publisher.sent
    assert first[1].command_id == first[2] == again[1].command_id  # the bus drops the second
    assert first[1].command_id.startswith("links-")
    assert [(e.src_id, e.dst_id) for e in first[1].edges] == [("new", "a"), ("other", "a")]
    assert rig.metrics.totals() == {"edges_proposed": 4}


async def test_a_batch_where_one_memory_has_edges_proposes_its_command_of_one_at_a_time() -> None:
    rig = Rig(("a", 0.95))
    rig.store.put(twin("a"))
    other = memory("other", "Release trains leave every second Tuesday", product_id="app")
    rig.store.put(replace(other, revision=2))  # revised since: skipped
    batch = [
        IndexedMemory("evt-1", WORKSPACE, "new", 1, [0.1, 0.2], NEW.scope_ref),
        IndexedMemory("evt-2", WORKSPACE, "other", 1, [0.1, 0.2], other.scope_ref),
    ]

    await rig.link.side_by_side(batch)

    assert [c.command_id for _, c, _ in rig.publisher.sent] == ["evt-1:link"]


async def test_a_batch_across_workspaces_proposes_one_command_in_each() -> None:
    rig = Rig(("a", 0.95))
    rig.store.put(twin("a"))
    rig.store.put(replace(twin("a"), workspace_id="ws-2"))
    rig.store.put(replace(NEW, workspace_id="ws-2"))
    batch = [
        IndexedMemory("evt-1", WORKSPACE, "new", 1, [0.1, 0.2], NEW.scope_ref),
        IndexedMemory("evt-2", "ws-2", "new", 1, [0.1, 0.2], NEW.scope_ref),
    ]

    await rig.link.side_by_side(batch)

    sent = sorted((c.workspace_id, subject, c.command_id) for subject, c, _ in rig.publisher.sent)
    assert sent == [
        ("ws-2", "memhive.cmd.memory.link.ws-2", "evt-2:link"),
        (WORKSPACE, f"memhive.cmd.memory.link.{WORKSPACE}", "evt-1:link"),
    ]


class SameTopic:
    """A classifier linking every neighbour as related for its own reason (an LLM's), which
    near-duplicate groups leave alone."""

    async def classify(self, new, neighbours):
        return [
            EdgeProposal(new.id, n.id, EdgeKind.RELATED_TO, score, "same release process")
            for n, score in neighbours
        ]


async def test_a_batch_proposes_commands_of_bounded_size_each_memorys_edges_together() -> None:
    rig = Rig(*((f"n{i}", 0.99 - i / 1000) for i in range(50)), k=50)
    rig.link._classifier = SameTopic()
    for i in range(50):
        rig.store.put(twin(f"n{i}"))
    others = [
        memory(f"m{i}", f"Release trains leave on day {i}", product_id="app") for i in range(5)
    ]
    for m in others:
        rig.store.put(m)
    batch = [IndexedMemory(f"evt-{m.id}", WORKSPACE, m.id, 1, [0.1], m.scope_ref) for m in others]

    await rig.link.side_by_side(batch)

    sizes = [len(c.edges) for _, c, _ in rig.publisher.sent]
    assert sizes == [200, 50]  # four memories' 50 edges, then the fifth's: never split
    assert len({c.command_id for _, c, _ in rig.publisher.sent}) == 2
    assert all("m4" in (e.src_id, e.dst_id) for e in rig.publisher.sent[1][1].edges)


async def test_a_failure_in_a_batch_side_by_side_is_raised_after_the_others_are_linked() -> None:
    rig = Rig(("a", 0.95))
    rig.store.put(twin("a"))
    batch = [
        IndexedMemory("evt-1", WORKSPACE, "new", 1, [0.1, 0.2], NEW.scope_ref),
        IndexedMemory("evt-2", "other-workspace", "gone", 1, [0.1, 0.2], NEW.scope_ref),
    ]
    failing = rig.store.get_many

    async def get_many(workspace_id, ids):
        if workspace_id == "other-workspace":
            raise ConnectionError("the store went away")
        return await failing(workspace_id, ids)

    rig.store.get_many = get_many
    with pytest.raises(ConnectionError):
        await rig.link.side_by_side(batch)
    assert [c.command_id for _, c, _ in rig.publisher.sent] == ["evt-1:link"]


def near_duplicate_link(src: str, dst: str) -> Edge:
    rationale = "near-duplicate text (cosine 0.990 >= 0.92)"
    return Edge(src, dst, EdgeKind.RELATED_TO, 0.99, "link-classifier", CreatorKind.CLASSIFIER,
                rationale, T0)  # fmt: skip


async def test_a_copy_of_copies_linked_to_each_other_is_linked_to_the_closest_only() -> None:
    rig = Rig(("a", 0.99), ("b", 0.98), ("c", 0.97), ("d", 0.96))
    for memory_id in "abcd":
        rig.store.put(twin(memory_id))
    rig.store.put(twin("a"), edges=(near_duplicate_link("b", "a"),))
    rig.store.put(twin("b"), edges=(near_duplicate_link("b", "a"),))
    # c and d are linked through "x", a copy outside the neighbours: one group too
    rig.store.put(twin("c"), edges=(near_duplicate_link("x", "c"),))
    rig.store.put(twin("d"), edges=(near_duplicate_link("x", "d"),))

    assert [p.dst_id for p in await rig.run()] == ["a", "c"]


async def test_links_of_other_kinds_and_reasons_do_not_make_a_group() -> None:
    rig = Rig(("a", 0.99), ("b", 0.98))
    by_agent = Edge("b", "a", EdgeKind.RELATED_TO, 1.0, "agent", CreatorKind.AGENT, "see", T0)
    rig.store.put(twin("a"), edges=(by_agent,))
    rig.store.put(twin("b"), edges=(by_agent,))

    assert [p.dst_id for p in await rig.run()] == ["a", "b"]

    rig.link._classifier = SameTopic()  # its own related_to: every pair, group or not
    rig.store.put(twin("a"), edges=(near_duplicate_link("b", "a"),))
    rig.store.put(twin("b"), edges=(near_duplicate_link("b", "a"),))
    assert [p.dst_id for p in await rig.run()] == ["a", "b"]


async def test_a_memory_already_linked_to_a_group_gets_no_second_link_to_it() -> None:
    rig = Rig(("a", 0.99))
    rig.store.put(twin("a"), edges=(near_duplicate_link("a", "x"),))
    rig.store.put(NEW, edges=(near_duplicate_link("new", "x"),))

    assert await rig.run() == []
    assert rig.publisher.sent == []


async def test_copies_in_one_batch_link_to_the_group_once_each() -> None:
    """Each memory of a batch sees the links the ones before it proposed."""
    rig = Rig(("a", 0.99), ("b", 0.98), min_similarity=0.92)
    rig.store.put(twin("a"))
    rig.store.put(twin("b"))
    copies = [twin(f"copy{i}") for i in range(3)]
    for copy in copies:
        rig.store.put(copy)
    batch = [IndexedMemory(f"evt-{c.id}", WORKSPACE, c.id, 1, [0.1], c.scope_ref) for c in copies]

    await rig.link.side_by_side(batch)

    [(_, command, _)] = rig.publisher.sent
    # the first copy joins a and b (not linked yet); the others find them one group
    assert [(e.src_id, e.dst_id) for e in command.edges] == [
        ("copy0", "a"), ("copy0", "b"), ("copy1", "a"), ("copy2", "a"),
    ]  # fmt: skip


def test_groups_hold_long_chains_of_copies() -> None:
    """A hub's many links, or a chain of copies, joined in any order: no recursion limit."""
    groups = NearDuplicateGroups()
    groups.learn(near_duplicate_link(f"c{i}", f"c{i + 1}") for i in range(5000))
    proposals = [
        EdgeProposal("new", dst, EdgeKind.RELATED_TO, 0.99, "near-duplicate text (cosine 0.99)")
        for dst in ("c0", "c5000", "other")
    ]
    assert [p.dst_id for p in groups.fewest("new", proposals)] == ["c0", "other"]
