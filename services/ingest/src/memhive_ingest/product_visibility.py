"""The visibility a draft without one inherits from its product's record (Hive's rule)."""

from __future__ import annotations

from memhive_domain.memory import MemoryDraft, inheriting_product
from memhive_domain.principals import Principal
from memhive_domain.scopes import Visibility
from memhive_ports.products import ProductDirectory


async def product_visibility(
    products: ProductDirectory | None, draft: MemoryDraft, principal: Principal
) -> Visibility | None:
    """None when the draft gives its own, has no product, or the product has no record."""
    product_id = inheriting_product(draft, principal)
    if product_id is None or products is None:
        return None
    product = await products.get(principal.workspace_id, product_id)
    return None if product is None else product.visibility
