"""The scopes a principal reads something in (use_cases/scopes.py): products with a record it
may see and products its readable memories name, found one per lane query and bounded."""

from __future__ import annotations

from dataclasses import replace

import pytest
from memhive_domain.principals import Principal, Role
from memhive_domain.products import Product
from memhive_domain.scopes import Scope, Visibility
from memhive_query.use_cases import scopes
from memhive_query.use_cases.products import Products
from memhive_query.use_cases.scopes import ProductScope, ScopesOfPrincipal

from tests.fakes import FakeProductDirectory, FakeStore, FixedClock, SelectingLexicalIndex
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory

BOB = Principal("ws", "bob", Role.AGENT, "product:ios/agent:bob")


def in_product(n: int, product_id: str, **changes: object):
    return memory(n, scope=Scope.PRODUCT, product_id=product_id, **changes)


def use_case(store: FakeStore, *records: Product, lagging: set[str] | None = None):
    lexical = SelectingLexicalIndex(store, NOW, lagging or set())
    products = Products(FakeProductDirectory(*records), FixedClock(NOW))
    return ScopesOfPrincipal(products, lexical, store, FixedClock(NOW)), lexical


async def test_recorded_products_and_those_memories_name_are_listed_once() -> None:
    store = FakeStore()
    for n, product_id in enumerate(["ios", "ios", "web", "api"], start=1):
        store.put(in_product(n, product_id))
    store.put(memory(9))  # global: no product
    recorded = Product("ws", "ios", "iOS app", Visibility.PRIVATE, "u1", NOW)
    found, lexical = use_case(store, recorded)

    answer = await found(MEMBER)

    assert answer.products == [
        ProductScope("api", None, False),
        ProductScope("ios", "iOS app", True),
        ProductScope("web", None, False),
    ]
    assert answer.complete
    assert len(lexical.listings) == 4  # one query per product found, one to find no more
    assert lexical.listings[-1].excluded_products == {"api", "ios", "web"}


async def test_a_viewer_sees_products_of_public_memories_only() -> None:
    store = FakeStore()
    store.put(in_product(1, "ios", visibility=Visibility.PUBLIC))
    store.put(in_product(2, "secret"))
    found, _ = use_case(store)
    assert [p.product_id for p in (await found(VIEWER)).products] == ["ios"]


async def test_an_agent_sees_no_product_named_only_in_a_node_it_cannot_read() -> None:
    store = FakeStore()
    store.put(in_product(1, "ios", agent_id="bob"))
    store.put(in_product(2, "web", agent_id="eve"))
    found, _ = use_case(store)
    assert [p.product_id for p in (await found(BOB)).products] == ["ios"]


async def test_forgotten_and_expired_memories_name_no_product() -> None:
    store = FakeStore()
    store.put(replace(in_product(1, "gone"), forgotten=True))
    store.put(in_product(2, "expired", expires_at=NOW))
    found, _ = use_case(store)
    answer = await found(MEMBER)
    assert answer.products == [] and answer.complete


async def test_a_lane_behind_a_forget_is_read_past_and_said_when_it_hides_the_rest() -> None:
    store = FakeStore()
    store.put(in_product(1, "ios"))
    store.put(replace(in_product(2, "web", days_ago=1), forgotten=True))  # newest, still listed
    found, _ = use_case(store, lagging={memory(2).id})
    assert [p.product_id for p in (await found(MEMBER)).products] == ["ios"]

    stale = {memory(n).id for n in range(10, 10 + scopes.PROBE)}
    for n in range(10, 10 + scopes.PROBE):
        store.put(replace(in_product(n, f"old{n}", days_ago=0), forgotten=True))
    found, _ = use_case(store, lagging=stale)
    answer = await found(MEMBER)
    assert answer.products == [] and not answer.complete


async def test_the_search_stops_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scopes, "MAX_FOUND", 3)
    store = FakeStore()
    for n in range(1, 6):
        store.put(in_product(n, f"p{n}"))
    found, lexical = use_case(store)
    answer = await found(MEMBER)
    assert len(answer.products) == 3 and not answer.complete
    assert len(lexical.listings) == 3
