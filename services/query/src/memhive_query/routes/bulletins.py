"""/v1/bulletins/{scope} and /v1/context: what an agent should know at session start."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.bulletins import ScopeBulletin

router = APIRouter(prefix="/v1", tags=["bulletins"])


class ContextRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str | None = Field(None, description="the task at hand; relevant memories first")
    scope: str | None = Field(None, description="global or product; default from product_id")
    product_id: str | None = None
    token_budget: int = Field(description="the most tokens the pack may use, 1..32000")


@router.get("/bulletins/{scope}")
async def get_bulletin(
    scope: str, gw: GatewayDep, who: PrincipalDep, product_id: str | None = None
) -> dict:
    """The scope's bulletin for the caller: byte-identical until memories in the scope change.
    Non-members get a bulletin rendered from public memories only."""
    return bulletin_json(await gw.bulletin(who, scope, product_id))


@router.post("/context")
async def get_context(request: ContextRequest, gw: GatewayDep, who: PrincipalDep) -> dict:
    pack = await gw.context(
        who, request.query, request.scope, request.product_id, request.token_budget
    )
    return {
        "text": pack.text,
        "tokens_used": pack.tokens_used,
        "token_budget": pack.token_budget,
        "bulletin_truncated": pack.bulletin_truncated,
        "items": [{"id": p.memory_id, "class": p.pack_class.value} for p in pack.selected],
    }


def bulletin_json(found: ScopeBulletin) -> dict:
    b = found.bulletin
    return {
        "scope": found.scope.scope.value,
        "product_id": found.scope.product_id,
        "text": b.text,
        "generated_at": utc_iso(b.generated_at),
        "token_count": b.token_count,
        "renderer": b.renderer,
        "fingerprint": b.fingerprint,
        "memory_ids": list(b.shown_ids),
        "sources": [{"id": i, "revision": r} for i, r in b.sources],
        "pinned_over_budget": b.pinned_over_budget,
    }
