"""/v1/memories: save, get, list, forget."""

from __future__ import annotations

import base64
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.recall import SelectionRequest

from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import SaveRequest, UpdateRequest, memory_json
from memhive_query.use_cases.save import Wait

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.post("", status_code=201)
async def save_memory(
    request: SaveRequest, gw: GatewayDep, who: PrincipalDep, wait: Wait = "persisted"
) -> JSONResponse:
    """Save a memory. `wait=indexed` returns once it is recallable (read-your-writes).

    The same body in the same scope returns the existing memory (200, status "duplicate");
    near-duplicates are refused (409, listed in "similar") unless `force` or `supersedes`.
    """
    outcome = await gw.save(
        who, request.draft(), wait, force=request.force, supersedes=request.supersedes
    )
    body = {
        "id": outcome.memory.id,
        "status": outcome.status,
        "memory": memory_json(outcome.memory),
    }
    status_code = {"accepted": 202, "duplicate": 200}.get(outcome.status, 201)
    return JSONResponse(body, status_code=status_code)


@router.get("/{memory_id}")
async def get_memory(memory_id: str, gw: GatewayDep, who: PrincipalDep) -> dict:
    return memory_json(await gw.reader.get(who, memory_id))


@router.get("")
async def list_memories(
    gw: GatewayDep,
    who: PrincipalDep,
    kind: Annotated[list[str] | None, Query()] = None,
    scope: str | None = None,
    product_id: str | None = None,
    tag: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: str | None = None,
) -> dict:
    """Newest first; pass `next_cursor` back as `cursor` for the next page."""
    selection = SelectionRequest(scope=scope, product_id=product_id, kinds=kind, tags=tag)
    page = await gw.reader.list(who, selection, _offset(cursor), limit)
    next_cursor = None if page.next_offset is None else _cursor(page.next_offset)
    return {"items": [memory_json(m) for m in page.items], "next_cursor": next_cursor}


@router.patch("/{memory_id}")
async def update_memory(
    memory_id: str,
    request: UpdateRequest,
    gw: GatewayDep,
    who: PrincipalDep,
    wait: Wait = "persisted",
) -> JSONResponse:
    """Pin or unpin: a new revision, applied through the log like every write."""
    status = await gw.update(who, memory_id, pinned=request.pinned, wait=wait)
    return JSONResponse(
        {"id": memory_id, "status": status}, status_code=202 if status == "accepted" else 200
    )


@router.delete("/{memory_id}")
async def forget_memory(
    memory_id: str, gw: GatewayDep, who: PrincipalDep, wait: Wait = "persisted"
) -> JSONResponse:
    """Forget: the memory leaves every lane; the record keeps its history."""
    status = await gw.forget(who, memory_id, wait)
    return JSONResponse(
        {"id": memory_id, "status": status}, status_code=202 if status == "accepted" else 200
    )


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    tag, _, value = _decoded(cursor).partition(":")
    if tag != "o" or not (value.isascii() and value.isdigit()):
        raise InvalidInput([FieldProblem("cursor", "is not a cursor this API returned")])
    return int(value)


def _decoded(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor.encode()).decode()
    except ValueError:  # not base64, or not UTF-8 inside
        return ""
