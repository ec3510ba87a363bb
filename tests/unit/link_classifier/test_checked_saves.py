"""A save the gateway checked for near-duplicates is not searched again by the classifier
without an LLM: only what was indexed since the check is compared (recent.py)."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from memhive.v1 import edges_pb2
from memhive_domain.scopes import Scope, ScopeRef
from memhive_link_classifier.fallback import NearDuplicateClassifier
from memhive_link_classifier.linking import IndexedMemory, LinkNewMemory
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_link_classifier.recent import KEPT, RecentlyIndexed, unit_vector
from memhive_ports import LaneHit

from tests.fakes import FakePublisher, FakeStore, FakeVectorIndex, FixedClock
from tests.unit.link_classifier.fakes import WORKSPACE, Metrics, memory

A = memory("a", "Release trains leave every other Tuesday")
B = memory("b", "Release trains leave every 2nd Tuesday")  # its near-duplicate
FAR = memory("far", "Lunch is on the fourth floor")
VECTORS = {"a": [1.0, 0.0], "b": [0.99, 0.14], "far": [0.0, 1.0]}
MEMORIES = {m.id: m for m in (A, B, FAR)}
THRESHOLD = 0.85


class Rig:
    def __init__(self, *hits: tuple[str, float], llm: bool = False) -> None:
        self.store, self.publisher, self.clock = FakeStore(), FakePublisher(), FixedClock()
        self.metrics = Metrics.collecting()
        self.index = FakeVectorIndex([LaneHit(i, s) for i, s in hits])
        for m in (A, B, FAR):
            self.store.put(m)
        counters = ClassifierMetrics(self.metrics.provider.get_meter(METER_NAME))
        self.link = LinkNewMemory(
            self.store, self.index, NearDuplicateClassifier(THRESHOLD), self.publisher,
            self.clock, counters, neighbours=5, min_similarity=None if llm else THRESHOLD,
        )  # fmt: skip
        self.clock.advance(30)  # running for a while before the saves below

    async def indexed(
        self,
        memory_id: str,
        checked: float | None = THRESHOLD,
        ago_s: float = 1,
        near: dict[str, float] | None = None,
    ):
        """Its MemoryIndexed, for a save checked `ago_s` seconds before now that found `near`."""
        self.clock.advance(0.1)
        at = self.clock.now() - timedelta(seconds=ago_s)
        m = MEMORIES[memory_id]
        event = IndexedMemory(
            f"evt-{memory_id}", WORKSPACE, memory_id, 1, VECTORS[memory_id], m.scope_ref,
            near_duplicate_check=checked, checked_at=None if checked is None else at,
            near_duplicates=near or {},
        )  # fmt: skip
        return await self.link(event)

    def linked(self) -> list[tuple[str, str]]:
        return [(e.src_id, e.dst_id) for _, c, _ in self.publisher.sent for e in c.edges]


async def test_a_save_checked_at_the_classifiers_threshold_costs_no_search() -> None:
    rig = Rig(("far", 0.2))
    assert await rig.indexed("far", checked=None) == []  # an older sender: searched
    assert await rig.indexed("a") == []
    assert len(rig.index.searches) == 1 and rig.publisher.sent == []
    assert rig.metrics.totals() == {"searches_skipped": 1}


async def test_a_forced_save_is_linked_to_the_near_duplicates_its_check_found_unsearched() -> None:
    """Saved with force beside "a" (0.99): the check's hit is linked as the search's would be,
    with what was indexed since the check ("far": below the threshold, not linked)."""
    searched, told = Rig(("a", 0.99), ("far", 0.14)), Rig(("a", 0.99), ("far", 0.14))
    for rig in (searched, told):
        await rig.indexed("far", ago_s=0.5)
    await searched.indexed("b", checked=None)
    await told.indexed("b", near={"a": 0.99})
    assert told.index.searches == [] and len(searched.index.searches) == 1
    assert told.linked() == searched.linked() == [("b", "a")]
    [(_, by_search, _)], [(_, by_check, _)] = searched.publisher.sent, told.publisher.sent
    assert by_check.edges == by_search.edges


async def test_a_save_checked_at_a_higher_threshold_is_searched_and_linked() -> None:
    """The gateway refused only above 0.95: a neighbour at 0.9 is still the classifier's."""
    rig = Rig(("a", 0.9))
    await rig.indexed("b", checked=0.95)
    assert len(rig.index.searches) == 1 and rig.linked() == [("b", "a")]


async def test_with_an_llm_every_memory_is_searched() -> None:
    """An LLM links what a cosine threshold cannot see: the check vouches for nothing."""
    rig = Rig(("a", 0.7), llm=True)
    rig.link._classifier = NearDuplicateClassifier(0.6)  # stands in for the LLM's wider net
    await rig.indexed("b")
    assert len(rig.index.searches) == 1 and rig.linked() == [("b", "a")]


async def test_two_near_duplicates_checked_before_either_was_indexed_are_still_linked() -> None:
    """The race: each save's check missed the other. The first MemoryIndexed finds nothing;
    the second is compared with what was indexed since its check, and finds the first."""
    rig = Rig()
    assert await rig.indexed("a", ago_s=1) == []
    await rig.indexed("far", ago_s=1)
    await rig.indexed("b", ago_s=1)
    assert rig.index.searches == [] and rig.linked() == [("b", "a")]
    [(_, command, _)] = rig.publisher.sent
    [edge] = command.edges
    assert edge.kind == edges_pb2.EDGE_KIND_RELATED_TO and edge.weight > 0.95


async def test_a_check_older_than_what_this_process_remembers_is_searched() -> None:
    rig = Rig(("a", 0.99))
    await rig.indexed("b", ago_s=60)  # checked before this classifier started
    assert len(rig.index.searches) == 1 and rig.linked() == [("b", "a")]

    rig = Rig(("a", 0.99))
    await rig.indexed("a")
    for _ in range(KEPT):  # a busy spell: "a" is overwritten here
        await rig.indexed("far")
    await rig.indexed("b", ago_s=0.5)  # checked after "a" was indexed: the lane had it
    assert rig.index.searches == [] and rig.linked() == []
    await rig.indexed("b", ago_s=KEPT * 0.1 + 5)  # checked before "a" came: searched
    assert len(rig.index.searches) == 1 and rig.linked() == [("b", "a")]


def test_more_nodes_than_memories_kept_start_the_memory_again() -> None:
    """The codes of nodes are bounded too: past KEPT nodes, nothing earlier is vouched for."""
    clock = FixedClock()
    recent = RecentlyIndexed(clock)
    clock.advance(30)
    checked_at = clock.now()
    for n in range(KEPT + 1):
        clock.advance(0.001)
        recent.add((WORKSPACE, ScopeRef(Scope.PRODUCT, f"p{n}"), ""), f"m{n}", unit_vector([1, 0]))
    assert recent.since(checked_at, (WORKSPACE, A.scope_ref, ""), unit_vector([1, 0])) is None
    clock.advance(2)  # a check after the restart (and its clock skew) is vouched for again
    assert recent.since(clock.now(), (WORKSPACE, A.scope_ref, ""), unit_vector([1, 0])) == {}


async def test_a_batch_linked_side_by_side_sees_what_came_before_it_as_one_at_a_time() -> None:
    """Without an LLM a batch is linked at once; the memory of what was indexed lately is
    still read and noted in order, so the race above links the same."""
    alone, batched = Rig(), Rig()
    for memory_id in ("a", "far", "b"):
        await alone.indexed(memory_id, ago_s=1)
    batched.clock.advance(0.3)
    at = batched.clock.now() - timedelta(seconds=1)
    batch = [
        IndexedMemory(
            f"evt-{m}",
            WORKSPACE,
            m,
            1,
            VECTORS[m],
            MEMORIES[m].scope_ref,
            near_duplicate_check=THRESHOLD,
            checked_at=at,
        )  # fmt: skip
        for m in ("a", "far", "b")
    ]
    await batched.link.side_by_side(batch)
    assert batched.index.searches == [] and batched.linked() == alone.linked() == [("b", "a")]


@settings(max_examples=60, deadline=None)
@given(
    vectors=st.lists(
        st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3), min_size=1, max_size=40
    ),
    query=st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3),
    at_least=st.floats(-1, 1, allow_nan=False),
)
def test_what_is_seen_since_a_check_at_least_so_similar_is_what_python_would_keep(
    vectors: list[list[float]], query: list[float], at_least: float
) -> None:
    """The floor is applied before the scores are gathered (a burst into one scope holds
    hundreds seen since a check, few of them near); it keeps exactly what comparing each
    score with it would."""
    clock = FixedClock()
    recent = RecentlyIndexed(clock)
    clock.advance(30)
    checked_at = clock.now()
    node = (WORKSPACE, A.scope_ref, "")
    for n, vector in enumerate(vectors):
        clock.advance(0.001)
        recent.add(node, f"m{n}", unit_vector(vector))
    every = recent.since(checked_at, node, unit_vector(query))
    assert every is not None and len(every) == len(vectors)
    near = recent.since(checked_at, node, unit_vector(query), at_least=at_least)
    assert near == {m: score for m, score in every.items() if score >= at_least}
