from __future__ import annotations

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
