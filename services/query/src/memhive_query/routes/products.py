"""/v1/products: a product's record, whose visibility its memories inherit."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from memhive_domain.products import MAX_NAME_CHARS, Product
from memhive_domain.scopes import PRODUCT_ID_PATTERN
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.request_types import VisibilityName
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

ProductIdPath = Annotated[str, Path(pattern=PRODUCT_ID_PATTERN.pattern)]

router = APIRouter(prefix="/v1/products", tags=["products"], responses=errors(401, 413, 422))


class ProductRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    visibility: VisibilityName = Field(
        description="private or public: what memories saved in the product (and its teams) "
        "without a visibility take",
    )
    name: str | None = Field(None, description="a display name", max_length=MAX_NAME_CHARS)


@router.put("/{product_id}", responses=errors(403, 503))
async def put_product(
    product_id: ProductIdPath, request: ProductRequest, gw: GatewayDep, who: PrincipalDep
) -> dict:
    """Create or replace a product's record (admins and members). Changes what later saves
    inherit; memories already saved keep their visibility."""
    return product_json(await gw.products.put(who, product_id, request.visibility, request.name))


@router.get("/{product_id}", responses=errors(403, 404))
async def get_product(product_id: ProductIdPath, gw: GatewayDep, who: PrincipalDep) -> dict:
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
