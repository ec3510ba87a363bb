"""Use cases on products: define one (its visibility is what its memories inherit), read them.

Admins and members define products they can see in the scope tree; agents and viewers
cannot. A viewer reads only public products, so a private product's name does not leak.
"""

from __future__ import annotations

from memhive_domain.errors import NotAllowed, NotFound
from memhive_domain.principals import Principal, Role
from memhive_domain.products import Product, define_product
from memhive_domain.scope_tree import can_read
from memhive_domain.scopes import Scope, ScopeRef
from memhive_ports import Clock
from memhive_ports.products import ProductDirectory

DEFINERS = (Role.ADMIN, Role.MEMBER)


class Products:
    def __init__(self, directory: ProductDirectory, clock: Clock) -> None:
        self._directory, self._clock = directory, clock

    async def put(
        self, principal: Principal, product_id: str, visibility: str, name: str | None
    ) -> Product:
        product = define_product(
            product_id, visibility, name, principal=principal, now=self._clock.now()
        )
        if principal.role not in DEFINERS:
            raise NotAllowed("only admins and members define products")
        if not can_read(principal, _node(product_id)):
            raise NotAllowed(f"product {product_id!r} is outside this token's scope tree")
        await self._directory.put(product)
        return product

    async def get(self, principal: Principal, product_id: str) -> Product:
        product = await self._directory.get(principal.workspace_id, product_id)
        if product is None or not _shown(principal, product):
            raise NotFound("product", product_id)
        return product

    async def list(self, principal: Principal) -> list[Product]:
        products = await self._directory.list(principal.workspace_id)
        return [p for p in products if _shown(principal, p)]


def _node(product_id: str) -> ScopeRef:
    return ScopeRef(Scope.PRODUCT, product_id)


def _shown(principal: Principal, product: Product) -> bool:
    return principal.can_see(product.visibility) and can_read(principal, _node(product.product_id))
