"""ProductDirectory on a JetStream KV bucket."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

from memhive.v1.products_pb2 import Product as ProductRecord
from memhive_contracts.codec import decode, encode
from memhive_contracts.product_mapping import product_from_pb, product_to_pb
from memhive_contracts.streams import PRODUCTS_BUCKET, product_key
from memhive_domain.products import Product
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.kv_watch import changed_keys, current_entries
from memhive_adapters.nats.unavailable import unavailable_as_port_error


class KvProductDirectory:
    """One key per `<workspace>.<unpadded urlsafe base64 of the product id>` (a product id may
    hold ':' and '.', which KV keys refuse or split on), holding a Product record."""

    def __init__(self, js: JetStreamContext, space: FreeSpace | None = None) -> None:
        """`space`: below its low-space watermark no product is written (InsufficientStorage)."""
        self._js, self._space = js, space
        self._kv: KeyValue | None = None

    async def get(self, workspace_id: str, product_id: str) -> Product | None:
        kv = await self._bucket()
        try:
            entry = await kv.get(product_key(workspace_id, _token(product_id)))
        except KeyNotFoundError:
            return None
        return product_from_pb(decode(entry.value or b"", ProductRecord))

    async def put(self, product: Product) -> None:
        if self._space is not None:
            self._space.require("the product was not stored")
        kv = await self._bucket()
        key = product_key(product.workspace_id, _token(product.product_id))
        async with unavailable_as_port_error("the product was not stored"):
            await kv.put(key, encode(product_to_pb(product)))

    async def changes(self) -> AsyncIterator[str]:
        """Subscribed when this returns: the key of every product put afterwards."""
        kv = await self._bucket()
        return changed_keys(await kv.watchall(meta_only=True))

    async def list(self, workspace_id: str) -> list[Product]:
        """One watch over the workspace's keys (the server filters them), values included."""
        entries = await current_entries(await self._bucket(), product_key(workspace_id, "*"))
        found = [product_from_pb(decode(e.value or b"", ProductRecord)) for e in entries]
        return sorted(found, key=lambda p: p.product_id)

    async def _bucket(self) -> KeyValue:
        """Bound on first use to the bucket that connection.ensure_streams declared."""
        if self._kv is None:
            self._kv = await self._js.key_value(PRODUCTS_BUCKET)
        return self._kv


def _token(product_id: str) -> str:
    return base64.urlsafe_b64encode(product_id.encode()).decode().rstrip("=")
