from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from memhive_domain.products import Product


class ProductDirectory(Protocol):
    """The products of each workspace; a put replaces the product's previous record."""

    async def get(self, workspace_id: str, product_id: str) -> Product | None: ...

    async def put(self, product: Product) -> None:
        """Durable when this returns."""
        ...

    async def list(self, workspace_id: str) -> list[Product]:
        """Every product of the workspace, by product id."""
        ...

    async def changes(self) -> AsyncIterator[str]:
        """Subscribed when this returns: something for every put made afterwards, by any
        replica (what caches of `get` drop their entries on)."""
        ...
