"""/v1/recall: hybrid search over what the caller may see."""

from __future__ import annotations

from fastapi import APIRouter
from memhive_domain.recall import SelectionRequest

from memhive_query.openapi import errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import RecallRequest, recalled_json
from memhive_query.use_cases.recall import LEXICAL_LANE, VECTOR_LANE

router = APIRouter(prefix="/v1", tags=["recall"], responses=errors(401, 413, 422))


@router.post("/recall", responses=errors(403))
async def recall(request: RecallRequest, gw: GatewayDep, who: PrincipalDep) -> dict:
    selection = SelectionRequest(
        scope=request.scope,
        product_id=request.product_id,
        scope_path=request.scope_path,
        kinds=request.kinds,
        tags=request.tags,
        **request.window(),
    )
    lanes = tuple(request.lanes or (VECTOR_LANE, LEXICAL_LANE))
    ranked = await gw.recall(
        who,
        request.query,
        selection,
        request.max_results,
        lanes,
        include_superseded=request.include_superseded,
        min_confidence=request.min_confidence,
    )
    return {"results": [recalled_json(r) for r in ranked]}
