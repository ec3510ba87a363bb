"""Skills: crystallize procedures into a downloadable SKILL.md, and list the procedures that
earned promotion (confirmed often enough; see domain/skills.py)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse
from memhive_domain.memory import Memory
from memhive_domain.skills import PROMOTION_THRESHOLD, skill_description, skill_name

from memhive_query.openapi import ACCEPTED, errors
from memhive_query.request_types import Cursor, OptionalScopePath, SkillName
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import CrystallizeRequest, memory_json
from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.save import Wait
from memhive_query.use_cases.skills import MAX_EXTRA_PROCEDURES, SkillRequest

router = APIRouter(tags=["skills"], responses=errors(401, 403, 404, 422))


@router.post(
    "/v1/memories/{memory_id}/crystallize", status_code=201, responses=ACCEPTED | errors(503)
)
async def crystallize_memory(
    memory_id: str,
    request: CrystallizeRequest,
    gw: GatewayDep,
    who: PrincipalDep,
    wait: Wait = "persisted",
) -> JSONResponse:
    """Turn a procedure (and the procedures in `also`) into a skill: answers its SKILL.md
    (front matter, steps, provenance) and marks each memory promoted."""
    skill = await gw.skills.crystallize(who, request.skill(memory_id), wait)
    body = {
        "name": skill.name,
        "status": skill.status,
        "filename": f"{skill.name}/SKILL.md",
        "skill_md": skill.content,
        "download": f"/v1/memories/{memory_id}/skill",
        "memories": [memory_json(m) for m in skill.memories],
    }
    return JSONResponse(body, status_code=202 if skill.status == "accepted" else 201)


@router.get(
    "/v1/memories/{memory_id}/skill",
    # Errors stay JSON (ErrorBody): only the 200 is markdown.
    responses={
        200: {
            "description": "the SKILL.md, as a file",
            "content": {"text/markdown": {"schema": {"type": "string"}}},
        }
    },
)
async def download_skill(
    memory_id: str,
    gw: GatewayDep,
    who: PrincipalDep,
    also: Annotated[list[UUID] | None, Query(max_length=MAX_EXTRA_PROCEDURES)] = None,
    name: Annotated[SkillName | None, Query()] = None,
) -> PlainTextResponse:
    """The skill's SKILL.md as the memories read now, as a file download."""
    request = SkillRequest(memory_id, tuple(str(i) for i in also or ()), name)
    skill = await gw.skills.export(who, request)
    disposition = f'attachment; filename="{skill.name}.SKILL.md"'
    return PlainTextResponse(
        skill.content, media_type="text/markdown", headers={"Content-Disposition": disposition}
    )


@router.get("/v1/skills")
async def list_skills(
    gw: GatewayDep,
    who: PrincipalDep,
    scope_path: Annotated[OptionalScopePath | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[Cursor | None, Query()] = None,
) -> dict:
    """The skills the caller may read: crystallized procedures, each with its SKILL.md's
    name and download. One page of procedures (newest first) filtered, so pass
    `next_cursor` on until it is null."""
    page = await gw.skills.promoted(who, scope_path, cursor, limit)
    return {"items": [skill_json(m) for m in page.items], "next_cursor": page.next_cursor}


def skill_json(memory: Memory) -> dict:
    promoted_at = memory.curation.promoted_at
    return {
        "id": memory.id,
        "name": skill_name(None, memory),
        "description": skill_description(None, [memory]),
        "scope_path": memory.scope_ref.key,
        "promoted_at": utc_iso(promoted_at) if promoted_at else None,
        "download": f"/v1/memories/{memory.id}/skill",
    }


@router.get("/v1/skills/candidates")
async def promotion_candidates(
    gw: GatewayDep,
    who: PrincipalDep,
    scope_path: Annotated[OptionalScopePath | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[Cursor | None, Query()] = None,
) -> dict:
    """Procedures confirmed at least `threshold` times, not flagged wrong, not yet promoted:
    one page of procedures (newest first) filtered, so pass `next_cursor` on until it is null."""
    page = await gw.skills.candidates(who, scope_path, cursor, limit)
    return {
        "items": [memory_json(m) for m in page.items],
        "next_cursor": page.next_cursor,
        "threshold": PROMOTION_THRESHOLD,
    }
