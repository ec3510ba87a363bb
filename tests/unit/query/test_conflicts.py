"""ConflictCheck over fakes: which neighbours count as similar, and which ids a save may supersede."""

from __future__ import annotations

import pytest
from memhive_domain.errors import InvalidInput, NotFound
from memhive_domain.memory import forget
from memhive_domain.scopes import Scope, ScopeRef
from memhive_ports import LaneHit
from memhive_query.use_cases.conflicts import MAX_SUPERSEDES, ConflictCheck

from tests.fakes import FakeStore, FakeVectorIndex
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public


def check(store: FakeStore, *hits: tuple[int, float]) -> tuple[ConflictCheck, FakeVectorIndex]:
    vector = FakeVectorIndex([LaneHit(mid(n), s) for n, s in hits])
    return ConflictCheck(vector, store, threshold=0.85), vector


async def test_similar_keeps_close_live_visible_neighbours_of_the_same_scope() -> None:
    store = FakeStore()
    new = public(10, days_ago=0, scope=Scope.PRODUCT, product_id="app", body="new body")
    store.put(public(1, scope=Scope.PRODUCT, product_id="app"))  # close enough
    store.put(public(2, scope=Scope.PRODUCT, product_id="app"))  # below the threshold
    store.put(forget(public(3, scope=Scope.PRODUCT, product_id="app"), NOW))
    store.put(memory(4, scope=Scope.PRODUCT, product_id="app"))  # private
    conflicts, vector = check(store, (1, 0.9), (2, 0.5), (3, 0.95), (4, 0.95))
    similar = await conflicts.similar(VIEWER, new, [1.0, 0.0, 0.0])
    assert [(s.memory.id, s.similarity) for s in similar] == [(mid(1), 0.9)]
    [(searched, _)] = vector.searches
    assert (searched.node, searched.public_only) == (ScopeRef(Scope.PRODUCT, "app"), True)
    assert searched.view is not None and searched.view.home.is_root  # the caller's view


async def test_an_exact_duplicate_counts_even_under_the_threshold() -> None:
    store = FakeStore()
    store.put(memory(1, body="same"))
    conflicts = ConflictCheck(FakeVectorIndex([LaneHit(mid(1), 0.96)]), store, threshold=0.99)
    similar = await conflicts.similar(MEMBER, memory(2, days_ago=0, body="same"), [1.0])
    assert [s.memory.id for s in similar] == [mid(1)]


async def test_superseded_ids_must_be_uuids_of_visible_memories() -> None:
    store = FakeStore()
    store.put(memory(1))
    conflicts, _ = check(store)
    assert [m.id for m in await conflicts.superseded(MEMBER, [mid(1), mid(1)], NOW)] == [mid(1)]
    for principal, ids in ((MEMBER, ["nope"]), (MEMBER, [mid(2)]), (VIEWER, [mid(1)])):
        with pytest.raises(NotFound):
            await conflicts.superseded(principal, ids, NOW)


async def test_superseding_too_many_is_invalid() -> None:
    conflicts, _ = check(FakeStore())
    with pytest.raises(InvalidInput, match="supersedes"):
        await conflicts.superseded(MEMBER, [mid(n) for n in range(MAX_SUPERSEDES + 1)], NOW)


async def test_exact_only_reads_no_near_duplicate_and_reports_none() -> None:
    store = FakeStore()
    store.put(public(1, scope=Scope.PRODUCT, product_id="app"))  # near: 0.9
    store.put(public(2, scope=Scope.PRODUCT, product_id="app", body="same"))  # exact: 0.99
    store.put(public(3, scope=Scope.PRODUCT, product_id="app"))  # very near: 0.97
    new = public(10, days_ago=0, scope=Scope.PRODUCT, product_id="app", body="same")
    conflicts, _ = check(store, (2, 0.99), (3, 0.97), (1, 0.9))
    similar = await conflicts.similar(VIEWER, new, [1.0], exact_only=True)
    assert [s.memory.id for s in similar] == [mid(2)]  # a near one is never reported
    assert store.reads == [[mid(2), mid(3)]]  # 0.9's record was never read
