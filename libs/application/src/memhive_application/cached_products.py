"""The product directory, with `get` cached: a save into a product reads the product's
record to inherit its visibility, and products change rarely. One KV read (a request and
its reply on the bus) per save became none (docs/benchmarks.md, "The product's record").

Every replica's cache is dropped on any product put anywhere (the bucket's watch); a put
through this directory drops it at once, so this replica reads its own writes. A product
without a record is cached too: most saves name one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from memhive_domain.products import Product
from memhive_ports.products import ProductDirectory

from memhive_application.watched_cache import WatchedCache

CACHE_TTL_S = 30.0  # the bound on staleness should the watch fail
CACHE_MAX = 10_000


class CachedProducts:
    def __init__(self, directory: ProductDirectory, ttl_s: float = CACHE_TTL_S) -> None:
        self._directory = directory
        self._cache: WatchedCache[tuple[str, str], Product | None] = WatchedCache(
            directory.changes, ttl_s=ttl_s, max_entries=CACHE_MAX, name="product"
        )

    async def start(self) -> None:
        await self._cache.start()

    async def stop(self) -> None:
        await self._cache.stop()

    async def get(self, workspace_id: str, product_id: str) -> Product | None:
        key = (workspace_id, product_id)
        return await self._cache.get(key, lambda: self._directory.get(workspace_id, product_id))

    async def put(self, product: Product) -> None:
        try:
            await self._directory.put(product)
        finally:  # even a put that failed to answer may have been stored
            self._cache.forget()

    async def list(self, workspace_id: str) -> list[Product]:
        return await self._directory.list(workspace_id)

    async def changes(self) -> AsyncIterator[str]:
        return await self._directory.changes()
