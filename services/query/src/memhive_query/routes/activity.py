"""/v1/activity: what happened in the caller's view, newest first ("what just happened here?")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from memhive_domain.activity import (
    DEFAULT_PAGE,
    MAX_CURSOR_CHARS,
    MAX_PAGE,
    ActivityEntry,
    ActivityKind,
)

from memhive_query.openapi import errors
from memhive_query.request_types import ActivityKindName, Moment, OptionalScopePath
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.activity import ActivityRequest

router = APIRouter(prefix="/v1", tags=["activity"], responses=errors(401, 403, 422))


@router.get("/activity")
async def recent_activity(
    gw: GatewayDep,
    who: PrincipalDep,
    since: Annotated[Moment | None, Query(description="only what happened at or after")] = None,
    scope: Annotated[
        OptionalScopePath | None, Query(description="only what touched this node")
    ] = None,
    kind: Annotated[list[ActivityKindName] | None, Query(max_length=len(ActivityKind))] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)] = None,
) -> dict:
    """Memories saved, updated, forgotten, linked and recalled, newest first, as far as the
    caller may read them (text only for memories that are still there; a recall's query for
    its author only). A page may end early with a `next_cursor`: one request reads a bounded
    part of the log, so pass it back until it is null."""
    request = ActivityRequest(scope, kind, since, limit, cursor)
    page = await gw.activity(who, request)
    return {"items": [activity_json(e) for e in page.entries], "next_cursor": page.next_cursor}


def activity_json(entry: ActivityEntry) -> dict[str, Any]:
    return {
        "kind": entry.kind.value,
        "time": utc_iso(entry.time),
        "actor": entry.actor,
        "memories": [
            {
                "id": m.id,
                "kind": m.kind,
                "scope_path": m.scope_path,
                "revision": m.revision,
                "summary": m.summary,
            }
            for m in entry.memories
        ],
        "edges": [
            {"src_id": e.src_id, "dst_id": e.dst_id, "kind": e.kind.value} for e in entry.edges
        ],
        "query": entry.query,
        "reason": entry.reason,
    }
