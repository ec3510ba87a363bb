"""/v1/scopes: where the caller reads something (the root and every product it may see), so a
client can list the bulletins it may read without knowing the products first."""

from __future__ import annotations

from fastapi import APIRouter

from memhive_query.openapi import errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.use_cases.scopes import MAX_FOUND

router = APIRouter(prefix="/v1/scopes", tags=["products"], responses=errors(401, 413, 422))


DESCRIPTION = f"""`global`, then every product the token may see: those with a record
(`PUT /v1/products`, `recorded: true`) and those named by a memory it may read. At most
{MAX_FOUND} products are found from memories; `complete: false` says there may be more."""


@router.get("", responses=errors(403), description=DESCRIPTION)
async def list_scopes(gw: GatewayDep, who: PrincipalDep) -> dict:
    found = await gw.scopes(who)
    products = [
        {
            "scope_path": f"product:{p.product_id}",
            "product_id": p.product_id,
            "name": p.name,
            "recorded": p.recorded,
        }
        for p in found.products
    ]
    return {"items": [{"scope_path": "global"}, *products], "complete": found.complete}
