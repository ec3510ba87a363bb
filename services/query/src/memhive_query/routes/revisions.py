"""/v1/memories/{id}/revisions: every change of a memory's meaning, oldest first."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from memhive_domain.revisions import Revision

from memhive_query.openapi import errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import memory_json

router = APIRouter(prefix="/v1/memories", tags=["memories"], responses=errors(401, 404, 422))


@router.get("/{memory_id}/revisions")
async def list_revisions(memory_id: str, gw: GatewayDep, who: PrincipalDep) -> dict:
    """Read from the log: saves, upstream revisions and forgets, each with what made it."""
    revisions = await gw.revisions(who, memory_id)
    return {"id": memory_id, "revisions": [revision_json(r) for r in revisions]}


def revision_json(revision: Revision) -> dict[str, Any]:
    memory = memory_json(revision.memory)
    return {
        "revision": revision.memory.revision,
        "updated_at": memory["updated_at"],
        "kind": memory["kind"],
        "body": memory["body"],
        "tags": memory["tags"],
        "scope": memory["scope"],
        "product_id": memory["product_id"],
        "forgotten": revision.memory.forgotten,
        "change": revision.change,
        "event_id": revision.event_id,
        "command_id": revision.command_id,
    }
