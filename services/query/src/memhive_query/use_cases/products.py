"""Use cases on products: define one (its visibility is what its memories inherit), read them.

Who may define and read products is the policy's (`Action.DEFINE_PRODUCT`: admins and
members, `Action.READ_PRODUCTS`); a definer must also read the product's node in the scope
tree. A viewer reads only public products, so a private product's name does not leak.
"""

from __future__ import annotations

from memhive_domain.errors import NotAllowed, NotFound
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.products import Product, define_product
from memhive_domain.scope_tree import can_read
from memhive_domain.scopes import Scope, ScopeRef
from memhive_ports import Clock
from memhive_ports.products import ProductDirectory


class Products:
    def __init__(self, directory: ProductDirectory, clock: Clock) -> None:
        self._directory, self._clock = directory, clock

    async def put(
        self, principal: Principal, product_id: str, visibility: str, name: str | None
    ) -> Product:
        product = define_product(
            product_id, visibility, name, principal=principal, now=self._clock.now()
        )
        require(principal, Action.DEFINE_PRODUCT)
        if not can_read(principal, _node(product_id)):
            raise NotAllowed(f"product {product_id!r} is outside this token's scope tree")
        await self._directory.put(product)
        return product

    async def get(self, principal: Principal, product_id: str) -> Product:
        require(principal, Action.READ_PRODUCTS)
        product = await self._directory.get(principal.workspace_id, product_id)
        if product is None or not _shown(principal, product):
            raise NotFound("product", product_id)
        return product

    async def list(self, principal: Principal) -> list[Product]:
        require(principal, Action.READ_PRODUCTS)
        products = await self._directory.list(principal.workspace_id)
        return [p for p in products if _shown(principal, p)]


def _node(product_id: str) -> ScopeRef:
    return ScopeRef(Scope.PRODUCT, product_id)


def _shown(principal: Principal, product: Product) -> bool:
    return principal.can_see(product.visibility) and can_read(principal, _node(product.product_id))
