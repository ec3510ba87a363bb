"""/v1/products: a product's record, whose visibility its memories inherit."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from memhive_domain.products import Product
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

router = APIRouter(prefix="/v1/products", tags=["products"], responses=errors(401, 413, 422))


class ProductRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    visibility: str = Field(
        description="private or public: what memories saved in the product (and its teams) "
        "without a visibility take",
        max_length=64,
    )
    name: str | None = Field(
        None, description="a display name, at most 200 characters", max_length=800
    )


@router.put("/{product_id}", responses=errors(403, 503))
async def put_product(
    product_id: str, request: ProductRequest, gw: GatewayDep, who: PrincipalDep
) -> dict:
    """Create or replace a product's record (admins and members). Changes what later saves
    inherit; memories already saved keep their visibility."""
    return product_json(await gw.products.put(who, product_id, request.visibility, request.name))


@router.get("/{product_id}", responses=errors(403, 404))
async def get_product(product_id: str, gw: GatewayDep, who: PrincipalDep) -> dict:
    return product_json(await gw.products.get(who, product_id))


@router.get("")
async def list_products(gw: GatewayDep, who: PrincipalDep) -> dict:
    return {"items": [product_json(p) for p in await gw.products.list(who)]}


def product_json(product: Product) -> dict[str, Any]:
    return {
        "product_id": product.product_id,
        "name": product.name,
        "visibility": product.visibility.value,
        "updated_by": product.updated_by,
        "updated_at": utc_iso(product.updated_at),
    }
