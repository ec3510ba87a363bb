"""/v1/memories/{id}/flags and /confirmations: verdicts on a memory, which move its trust
(flags down, confirmations up). A confirmation is a reader's; a flag, which lowers the
memory's trust for every reader, needs its node writable. Each is an UpdateMemory, applied
through the log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from memhive_domain.changes import MemoryChanges
from memhive_domain.curation import MAX_FLAGS, FlagDraft
from memhive_domain.text import MAX_ID_CHARS
from pydantic import Field

from memhive_query.openapi import ACCEPTED, errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import FlagRequest, flag_json, update_answer
from memhive_query.use_cases.save import Wait

FlagId = Annotated[str, Field(max_length=MAX_ID_CHARS)]

router = APIRouter(
    prefix="/v1/memories/{memory_id}", tags=["curation"], responses=errors(401, 403, 404, 422)
)


@router.post("/flags", status_code=201, responses=ACCEPTED | errors(503))
async def flag_memory(
    memory_id: str,
    request: FlagRequest,
    gw: GatewayDep,
    who: PrincipalDep,
    wait: Wait = "persisted",
) -> JSONResponse:
    """Mark a memory wrong, outdated or unverified, with a reason: it is listed on the memory
    and lowers its trust (and an `outdated` one makes it fully stale) until cleared.
    `flag_id` names the new flag, for clearing it."""
    changes = MemoryChanges(add_flag=FlagDraft(request.kind, request.reason))
    outcome = await gw.update(who, memory_id, changes, wait=wait)
    return update_answer(outcome, status_code=201, flag_id=outcome.change_id)


@router.get("/flags")
async def list_flags(memory_id: str, gw: GatewayDep, who: PrincipalDep) -> dict:
    memory = await gw.reader.get(who, memory_id)
    return {"items": [flag_json(flag) for flag in memory.curation.flags]}


@router.delete("/flags", responses=ACCEPTED)
async def clear_flags(
    memory_id: str,
    gw: GatewayDep,
    who: PrincipalDep,
    flag_id: Annotated[list[FlagId] | None, Query(max_length=MAX_FLAGS)] = None,
    wait: Wait = "persisted",
) -> JSONResponse:
    """Clear the flags named by `flag_id` (repeatable), or every flag when none is named.
    Needs the memory's node writable (an editor's decision, unlike flagging)."""
    changes = MemoryChanges(clear_flag_ids=tuple(flag_id or ()), clear_all_flags=not flag_id)
    return update_answer(await gw.update(who, memory_id, changes, wait=wait))


@router.post("/confirmations", responses=ACCEPTED | errors(503))
async def confirm_memory(
    memory_id: str, gw: GatewayDep, who: PrincipalDep, wait: Wait = "persisted"
) -> JSONResponse:
    """Report that a recalled memory held (a procedure worked): raises its trust, resets its
    staleness, and counts towards promoting a procedure into a skill."""
    outcome = await gw.update(who, memory_id, MemoryChanges(confirm=True), wait=wait)
    return update_answer(outcome)
