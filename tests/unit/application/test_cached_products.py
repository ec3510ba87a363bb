"""CachedProducts: a save's product record read once, this replica's puts read back at
once, another replica's seen once the watch reports them."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from memhive_application.cached_products import CachedProducts
from memhive_domain.products import Product
from memhive_domain.scopes import Visibility

from tests.fakes import FakeProductDirectory

AT = datetime(2026, 1, 2, tzinfo=UTC)


def product(visibility: Visibility, product_id: str = "ios") -> Product:
    return Product("ws", product_id, "", visibility, "admin", AT)


async def test_saves_into_a_product_read_its_record_once() -> None:
    directory = FakeProductDirectory(product(Visibility.PUBLIC))
    products = CachedProducts(directory)
    await products.start()
    try:
        for _ in range(5):
            assert await products.get("ws", "ios") == product(Visibility.PUBLIC)
            assert await products.get("ws", "android") is None  # no record: kept too
        assert directory.gets == 2
    finally:
        await products.stop()


async def test_a_put_through_the_cache_is_read_back_at_once() -> None:
    directory = FakeProductDirectory(product(Visibility.PUBLIC))
    products = CachedProducts(directory)
    await products.start()
    try:
        await products.get("ws", "ios")
        await products.put(product(Visibility.PRIVATE))
        assert await products.get("ws", "ios") == product(Visibility.PRIVATE)
        assert await products.list("ws") == [product(Visibility.PRIVATE)]
    finally:
        await products.stop()


async def test_another_replicas_put_is_seen_once_the_watch_reports_it() -> None:
    directory = FakeProductDirectory(product(Visibility.PUBLIC))
    products = CachedProducts(directory)
    await products.start()
    try:
        assert await products.get("ws", "ios") == product(Visibility.PUBLIC)
        await directory.put(product(Visibility.PRIVATE))  # not through this cache
        for _ in range(5):
            await asyncio.sleep(0)
        assert await products.get("ws", "ios") == product(Visibility.PRIVATE)
    finally:
        await products.stop()


class FailingPut(FakeProductDirectory):
    async def put(self, product: Product) -> None:
        await super().put(product)
        raise TimeoutError("stored, but the answer was lost")


async def test_a_put_that_failed_to_answer_still_drops_the_cache() -> None:
    directory = FailingPut(product(Visibility.PUBLIC))
    products = CachedProducts(directory)  # not started: no watch reports the put
    await products.get("ws", "ios")
    with pytest.raises(TimeoutError):
        await products.put(product(Visibility.PRIVATE))
    assert await products.get("ws", "ios") == product(Visibility.PRIVATE)
