"""KvProductDirectory against a real nats-server: round trip, replace, one workspace's list."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from memhive_adapters.nats.connection import ensure_streams
from memhive_adapters.nats.kv_product_directory import KvProductDirectory
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
