"""Products over a fake directory: who defines a product, and who sees it (a private
product's name never reaches a viewer, nor a product outside the caller's tree)."""

from __future__ import annotations

import pytest
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound
from memhive_domain.principals import Principal, Role
from memhive_domain.products import Product
from memhive_domain.scopes import Visibility
from memhive_query.use_cases.products import Products

from tests.fakes import FakeProductDirectory, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER

APP_MEMBER = Principal("ws", "u2", home="product:app")
AGENT = Principal("ws", "bot", Role.AGENT)


def product(product_id: str, visibility: Visibility, workspace: str = "ws") -> Product:
    return Product(workspace, product_id, product_id.title(), visibility, "u1", NOW)


@pytest.fixture
def directory() -> FakeProductDirectory:
    return FakeProductDirectory(
        product("app", Visibility.PUBLIC),
        product("web", Visibility.PRIVATE),
        product("elsewhere", Visibility.PUBLIC, workspace="other"),
    )


async def test_a_member_defines_a_product(directory) -> None:
    defined = await Products(directory, FixedClock(NOW)).put(MEMBER, "api", "private", " API ")
    assert defined == Product("ws", "api", "API", Visibility.PRIVATE, "u1", NOW)
    assert directory.held[("ws", "api")] == defined


async def test_agents_viewers_and_other_branches_may_not_define(directory) -> None:
    products = Products(directory, FixedClock(NOW))
    for principal, product_id in ((AGENT, "api"), (VIEWER, "api"), (APP_MEMBER, "web")):
        with pytest.raises(NotAllowed):
            await products.put(principal, product_id, "public", None)
    assert await products.put(APP_MEMBER, "app", "public", None)  # its own product
    with pytest.raises(InvalidInput):
        await products.put(MEMBER, "api", "secret", None)
    assert ("ws", "api") not in directory.held


async def test_each_caller_reads_the_products_it_may_see(directory) -> None:
    products = Products(directory, FixedClock(NOW))
    assert [p.product_id for p in await products.list(MEMBER)] == ["app", "web"]
    assert [p.product_id for p in await products.list(VIEWER)] == ["app"]
    assert [p.product_id for p in await products.list(APP_MEMBER)] == ["app"]
    assert (await products.get(VIEWER, "app")).name == "App"
    for principal, product_id in ((VIEWER, "web"), (APP_MEMBER, "web"), (MEMBER, "elsewhere")):
        with pytest.raises(NotFound):
            await products.get(principal, product_id)
