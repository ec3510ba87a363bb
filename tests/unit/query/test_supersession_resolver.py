"""SupersessionResolver over a fake record: successors fetched in rounds, only when needed."""

from __future__ import annotations

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


async def test_a_chain_resolves_to_its_live_head_in_rounds() -> None:
    a, b, c = memory(1, days_ago=30), memory(2, days_ago=20), memory(3, days_ago=10)
    store = FakeStore()
    store.put(a, (updates(b, a),))
    store.put(b, (updates(b, a), updates(c, b)))
    store.put(c, (updates(c, b),))
    [head] = await resolve(store, ranked(a))
    assert (head.memory.id, head.replaces, head.ranks) == (c.id, (a.id,), {})
    assert store.reads == [[b.id], [c.id]]  # one round per step along the chain


async def test_a_head_the_caller_cannot_see_hides_its_stale_memories_too() -> None:
    old = memory(1, days_ago=30, visibility=Visibility.PUBLIC)
    new = memory(2, days_ago=1)  # private
    store = FakeStore()
    store.put(old, (updates(new, old),))
    store.put(new, (updates(new, old),))
    assert await resolve(store, ranked(old), VIEWER) == []  # never current-looking
    assert [r.memory.id for r in await resolve(store, ranked(old), MEMBER)] == [new.id]
