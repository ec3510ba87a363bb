"""/v1/bulletins/{scope} and /v1/context: what an agent should know at session start."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from memhive_domain.context_pack import MAX_TOKEN_BUDGET
from memhive_domain.recall import MAX_QUERY_CHARS
from pydantic import ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.request_types import (
    BULLETIN_SCOPE_PATTERN,
    OptionalProductId,
    OptionalScopePath,
    json_integer,
    optional_text,
)
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import NodeFields, TimeWindow
from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.bulletins import ScopeBulletin

router = APIRouter(prefix="/v1", tags=["bulletins"], responses=errors(401, 422))


TaskText = optional_text(MAX_QUERY_CHARS, "the task at hand; relevant memories first")


class ContextRequest(TimeWindow, NodeFields):
    model_config = ConfigDict(extra="forbid")

    query: TaskText | None = None
    token_budget: json_integer(1, MAX_TOKEN_BUDGET) = Field(
        description="the most tokens the pack may use"
    )


@router.get("/bulletins/{scope:path}", responses=errors(403, 404))
async def get_bulletin(
    scope: Annotated[str, Path(pattern=BULLETIN_SCOPE_PATTERN)],
    gw: GatewayDep,
    who: PrincipalDep,
    product_id: Annotated[OptionalProductId | None, Query()] = None,
    scope_path: Annotated[OptionalScopePath | None, Query()] = None,
) -> dict:
    """The node's bulletin for the caller: byte-identical until memories at the node change.
    `scope` is global, product (with product_id) or a node path such as
    `product:ios/team:mobile`. Non-members get a bulletin rendered from public memories only."""
    return bulletin_json(await gw.bulletin(who, scope, product_id, scope_path))


@router.post("/context", responses=errors(403, 413))
async def get_context(request: ContextRequest, gw: GatewayDep, who: PrincipalDep) -> dict:
    pack = await gw.context(
        who,
        request.query,
        request.scope,
        request.product_id,
        request.token_budget,
        scope_path=request.scope_path,
        window=request.window(),
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
        "scope_path": found.scope.key,
        "text": b.text,
        "generated_at": utc_iso(b.generated_at),
        "token_count": b.token_count,
        "renderer": b.renderer,
        "fingerprint": b.fingerprint,
        "memory_ids": list(b.shown_ids),
        "sources": [{"id": i, "revision": r} for i, r in b.sources],
        "pinned_over_budget": b.pinned_over_budget,
    }
