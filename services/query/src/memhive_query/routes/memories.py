"""/v1/memories: save, get, list, forget."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MAX_TAGS
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest

from memhive_query.openapi import ACCEPTED, NearDuplicatesBody, errors
from memhive_query.request_types import (
    Cursor,
    KindName,
    Moment,
    OptionalProductId,
    OptionalScopePath,
    ScopeName,
    Tag,
)
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import (
    SaveRequest,
    UpdateRequest,
    memory_json,
    update_answer,
)
from memhive_query.use_cases.audit import AuditedSave
from memhive_query.use_cases.memories import MAX_PAGE
from memhive_query.use_cases.save import Wait

router = APIRouter(prefix="/v1/memories", tags=["memories"], responses=errors(401, 422))


@router.post(
    "",
    status_code=201,
    responses={200: {"description": "duplicate: the same body is already remembered"}}
    | ACCEPTED
    | errors(403, 404, 409, 413, 503, conflict=NearDuplicatesBody),
)
async def save_memory(
    request: SaveRequest, gw: GatewayDep, who: PrincipalDep, wait: Wait = "indexed"
) -> JSONResponse:
    """Save a memory. `wait=indexed` (the default) returns once it is recallable
    (read-your-writes) and refuses near-duplicates (409, listed in "similar") unless
    `force` or `supersedes`. `wait=persisted` returns once it is in the record and
    announced on the log, `accepted` at the same point (202): sooner, because the body is
    not embedded before the answer, so near-duplicates are not refused; the link classifier
    links the new memory to them afterwards (`related_to`, rationale "near-duplicate ...").

    The same body in the same scope returns the existing memory (200, status "duplicate"),
    whatever the wait.
    """
    return await answer_save(gw.save, who, request, wait)


async def answer_save(
    save: AuditedSave, who: Principal, request: SaveRequest, wait: Wait
) -> JSONResponse:
    """The save and its answer; `direct_saves.py` answers most saves with it, before FastAPI's
    routing."""
    supersedes = [str(i) for i in request.supersedes]
    outcome = await save(who, request.draft(), wait, force=request.force, supersedes=supersedes)
    body = {
        "id": outcome.memory.id,
        "status": outcome.status,
        "memory": memory_json(outcome.memory),
    }
    status_code = {"accepted": 202, "duplicate": 200}.get(outcome.status, 201)
    return JSONResponse(body, status_code=status_code)


@router.get("/{memory_id}", responses=errors(403, 404))
async def get_memory(
    memory_id: str, gw: GatewayDep, who: PrincipalDep, include_expired: bool = False
) -> dict:
    """`include_expired` (members, for audits): an expired memory is found too."""
    return memory_json(await gw.reader.get(who, memory_id, include_expired=include_expired))


@router.get("", responses=errors(403))
async def list_memories(
    gw: GatewayDep,
    who: PrincipalDep,
    kind: Annotated[list[KindName] | None, Query(max_length=len(MemoryKind))] = None,
    scope: Annotated[ScopeName | None, Query()] = None,
    product_id: Annotated[OptionalProductId | None, Query()] = None,
    scope_path: Annotated[OptionalScopePath | None, Query()] = None,
    tag: Annotated[list[Tag] | None, Query(max_length=MAX_TAGS)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    cursor: Annotated[Cursor | None, Query()] = None,
    created_after: Moment | None = None,
    created_before: Moment | None = None,
    occurred_after: Moment | None = None,
    occurred_before: Moment | None = None,
    include_expired: bool = False,
) -> dict:
    """Newest first; pass `next_cursor` back as `cursor` for the next page (an opaque keyset
    position: pages stay stable while memories are saved or forgotten). Time bounds are
    [after, before); `include_expired` (members, for audits) lists expired memories too."""
    selection = SelectionRequest(
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        kinds=kind,
        tags=tag,
        kinds_field="kind",
        tags_field="tag",
        include_expired=include_expired,
        created_after=created_after,
        created_before=created_before,
        occurred_after=occurred_after,
        occurred_before=occurred_before,
    )
    page = await gw.reader.list(who, selection, cursor, limit)
    return {"items": [memory_json(m) for m in page.items], "next_cursor": page.next_cursor}


@router.patch(
    "/{memory_id}", responses=ACCEPTED | errors(403, 404, 409, 503, conflict=NearDuplicatesBody)
)
async def update_memory(
    memory_id: str,
    request: UpdateRequest,
    gw: GatewayDep,
    who: PrincipalDep,
    wait: Wait = "persisted",
) -> JSONResponse:
    """Change body, importance, tags, pinned, visibility or expires_at: a new revision,
    applied through the log like every write (a new body is re-embedded and re-indexed;
    near-duplicates of it are refused with 409 unless `force`). Status: updated, unchanged
    or accepted."""
    outcome = await gw.update(who, memory_id, request.changes(), wait=wait, force=request.force)
    return update_answer(outcome)


@router.delete("/{memory_id}", responses=ACCEPTED | errors(403, 404, 503))
async def forget_memory(
    memory_id: str, gw: GatewayDep, who: PrincipalDep, wait: Wait = "persisted"
) -> JSONResponse:
    """Forget: the memory leaves every lane; the record keeps its history."""
    status = await gw.forget(who, memory_id, wait)
    return JSONResponse(
        {"id": memory_id, "status": status}, status_code=202 if status == "accepted" else 200
    )
