"""/v1/edges and /v1/memories/{id}/edges: link two memories, list a memory's links."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from memhive_query.openapi import ACCEPTED, errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import EdgeRequest, edge_json

router = APIRouter(prefix="/v1", tags=["edges"], responses=errors(401, 404, 422))
ACCEPTED_NOTE = (
    "not applied yet: both ends were live when the wait ended, and ingest applies the link "
    "unless one of them is forgotten before it does"
)


@router.post(
    "/edges",
    status_code=201,
    responses={200: {"description": "unchanged: the edge was already there"}}
    | ACCEPTED
    | errors(403, 409, 413, 503),
)
async def link_memories(request: EdgeRequest, gw: GatewayDep, who: PrincipalDep) -> JSONResponse:
    """Link src to dst; waits until both records hold the edge. Linking twice changes nothing."""
    outcome = await gw.link(who, request.draft())
    status_code = {"created": 201, "unchanged": 200}.get(outcome.status, 202)
    body = {"edge": edge_json(outcome.edge), "status": outcome.status}
    if outcome.status == "accepted":
        body["detail"] = ACCEPTED_NOTE
    return JSONResponse(body, status_code=status_code)


@router.get("/memories/{memory_id}/edges")
async def list_edges(memory_id: str, gw: GatewayDep, who: PrincipalDep) -> dict:
    """Edges to forgotten, expired or invisible memories are left out."""
    edges = await gw.edges.edges_of(who, memory_id)
    return {"id": memory_id, "edges": [edge_json(e) for e in edges]}
