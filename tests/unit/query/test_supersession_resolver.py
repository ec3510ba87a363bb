"""SupersessionResolver over a fake record: successors fetched in rounds, only when needed."""

from __future__ import annotations

from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.ranking import RankedMemory
from memhive_domain.scopes import Visibility
from memhive_query.use_cases.supersession_resolver import SupersessionResolver

from tests.fakes import FakeStore, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, updates


def ranked(*memories) -> list[RankedMemory]:
    return [
        RankedMemory(m, 1.0 - i / 10, 1.0 - i / 10, {"lexical": i + 1})
        for i, m in enumerate(memories)
    ]


async def resolve(store: FakeStore, candidates, principal=MEMBER, include_superseded=False):
    records = await store.get_many("ws", [r.memory.id for r in candidates])
    store.reads.clear()
    resolver = SupersessionResolver(store, FixedClock(NOW))
    return await resolver.resolve(
        principal, candidates, records, include_superseded=include_superseded
    )


async def test_without_edges_nothing_more_is_read() -> None:
    store = FakeStore()
    a, b = memory(1), memory(2)
    store.put(a), store.put(b)
    resolved = await resolve(store, ranked(a, b))
    assert [r.memory.id for r in resolved] == [a.id, b.id]
    assert store.reads == []


async def test_related_memories_resolve_as_memories_without_edges() -> None:
    a, b = memory(1, days_ago=2), memory(2, days_ago=1)
    related = Edge(b.id, a.id, EdgeKind.RELATED_TO, 0.9, "c", CreatorKind.CLASSIFIER, "", NOW)
    store = FakeStore()
    store.put(a, (related,)), store.put(b, (related,))
    resolved = await resolve(store, ranked(a, b), include_superseded=True)
    assert [(r.memory.id, r.replaces, r.superseded_by) for r in resolved] == [
        (a.id, (), None),
        (b.id, (), None),
    ]
    assert store.reads == []


async def test_a_chain_resolves_to_its_live_head_in_rounds() -> None:
    a, b, c = memory(1, days_ago=30), memory(2, days_ago=20), memory(3, days_ago=10)
    store = FakeStore()
    store.put(a, (updates(b, a),))
    store.put(b, (updates(b, a), updates(c, b)))
    store.put(c, (updates(c, b),))
    [head] = await resolve(store, ranked(a))
    assert (head.memory.id, head.replaces, head.ranks) == (c.id, (a.id,), {})
    assert store.reads == [[b.id], [c.id]]  # one round per step along the chain


async def test_a_reader_keeps_a_memory_whose_successor_it_cannot_see() -> None:
    """Issue 24: a private successor must not take a shared memory away from readers who
    cannot see it; they keep the original as current, even asking for history."""
    old = memory(1, days_ago=30, visibility=Visibility.PUBLIC)
    new = memory(2, days_ago=1)  # private
    store = FakeStore()
    store.put(old, (updates(new, old),))
    store.put(new, (updates(new, old),))
    for include_superseded in (False, True):
        [kept] = await resolve(store, ranked(old), VIEWER, include_superseded)
        assert (kept.memory.id, kept.replaces, kept.superseded_by) == (old.id, (), None)
    assert [r.memory.id for r in await resolve(store, ranked(old), MEMBER)] == [new.id]


async def test_nothing_is_fetched_past_a_successor_the_caller_cannot_see() -> None:
    a = memory(1, days_ago=30, visibility=Visibility.PUBLIC)
    b = memory(2, days_ago=20)  # private
    c = memory(3, days_ago=10, visibility=Visibility.PUBLIC)
    store = FakeStore()
    store.put(a, (updates(b, a),))
    store.put(b, (updates(b, a), updates(c, b)))
    store.put(c, (updates(c, b),))
    [kept] = await resolve(store, ranked(a), VIEWER)
    assert kept.memory.id == a.id
    assert store.reads == [[b.id]]  # c is never asked for: the chain ended at b
