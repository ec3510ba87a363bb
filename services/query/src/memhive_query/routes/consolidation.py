"""/v1/memories/consolidate: several memories become one that `updates` each of them."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from memhive_query.openapi import ACCEPTED, errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import ConsolidateRequest, memory_json
from memhive_query.use_cases.save import Wait

router = APIRouter(prefix="/v1/memories", tags=["curation"], responses=errors(401, 422))


@router.post(
    "/consolidate",
    status_code=201,
    responses=ACCEPTED
    | errors(403, 404)
    | {
        503: {
            "description": "summarize: the LLM could not write the body, or the bus cannot"
            " take writes for now; nothing was saved"
        }
    },
)
async def consolidate_memories(
    request: ConsolidateRequest, gw: GatewayDep, who: PrincipalDep, wait: Wait = "persisted"
) -> JSONResponse:
    """Merge 2..20 memories of one scope node into a new memory (the given body, or with
    `summarize` one written by the configured LLM) that `updates` each source, in one step:
    recall then serves the new memory in their place; their history stays."""
    outcome = await gw.consolidate(who, request.consolidation(), wait)
    body = {
        "id": outcome.memory.id,
        "status": outcome.status,
        "memory": memory_json(outcome.memory),
        "consolidated": list(dict.fromkeys(str(i) for i in request.ids)),
    }
    return JSONResponse(body, status_code=202 if outcome.status == "accepted" else 201)
