"""KvProductDirectory against a real nats-server: round trip, replace, one workspace's list,
the watch of changes, and a replica's cache dropped on another replica's put."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from memhive_adapters.nats.connection import ensure_streams
from memhive_adapters.nats.kv_product_directory import KvProductDirectory
from memhive_application.cached_products import CachedProducts
from memhive_domain.products import Product
from memhive_domain.scopes import Visibility
from nats.js import JetStreamContext

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def product(ws: str, product_id: str, visibility: Visibility, name: str = "") -> Product:
    return Product(ws, product_id, name, visibility, "admin", AT)


async def test_products_round_trip_replace_and_list_per_workspace(js: JetStreamContext) -> None:
    await ensure_streams(js)
    directory = KvProductDirectory(js)
    ws, other = f"ws-{uuid.uuid4().hex[:8]}", f"ws-{uuid.uuid4().hex[:8]}"
    assert await directory.list(ws) == [] and await directory.get(ws, "ios") is None

    # ':' and '.' are legal in product ids but not as such in KV keys.
    await directory.put(product(ws, "acme:billing.v2", Visibility.PRIVATE, "Billing"))
    await directory.put(product(ws, "ios", Visibility.PRIVATE))
    await directory.put(product(ws, "ios", Visibility.PUBLIC, "iOS"))
    await directory.put(product(other, "ios", Visibility.PRIVATE))

    assert await directory.get(ws, "ios") == product(ws, "ios", Visibility.PUBLIC, "iOS")
    assert [p.product_id for p in await directory.list(ws)] == ["acme:billing.v2", "ios"]
    assert await directory.list(other) == [product(other, "ios", Visibility.PRIVATE)]


async def test_changes_name_each_product_put_after_the_watch_began(js: JetStreamContext) -> None:
    await ensure_streams(js)
    directory = KvProductDirectory(js)
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    await directory.put(product(ws, "before", Visibility.PRIVATE))
    changes = await directory.changes()
    try:
        await directory.put(product(ws, "ios", Visibility.PUBLIC))
        seen = await asyncio.wait_for(anext(changes), 5)
    finally:
        await changes.aclose()
    assert seen.startswith(f"{ws}.")  # the put after the watch, not the one before it


async def test_a_cached_replica_sees_another_replicas_put_once_its_watch_reports_it(
    js: JetStreamContext,
) -> None:
    """Two gateways: one reads a product (absent, then cached), the other makes it public.
    The first must not keep answering from its cache."""
    await ensure_streams(js)
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    reader, writer = CachedProducts(KvProductDirectory(js)), KvProductDirectory(js)
    await reader.start()
    try:
        assert await reader.get(ws, "ios") is None  # cached: no record
        await writer.put(product(ws, "ios", Visibility.PUBLIC))
        for _ in range(500):
            if await reader.get(ws, "ios") is not None:
                break
            await asyncio.sleep(0.01)
        assert await reader.get(ws, "ios") == product(ws, "ios", Visibility.PUBLIC)
    finally:
        await reader.stop()
