"""Use cases: crystallize procedures into a skill (SKILL.md, the memories marked promoted),
render a skill for download, and list the procedures that earned promotion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memhive_domain.changes import MemoryChanges
from memhive_domain.errors import InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest
from memhive_domain.skills import (
    checked_procedures,
    is_promotion_candidate,
    render_skill,
    skill_description,
    skill_name,
)
from memhive_domain.text import id_list_problems
from memhive_ports import Clock

from memhive_query.use_cases.memories import MemoryReader, Page
from memhive_query.use_cases.save import Wait

MAX_EXTRA_PROCEDURES = 19  # a skill of at most 20 procedures


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    content: str  # SKILL.md
    memories: tuple[Memory, ...]
    status: str = "crystallized"  # or accepted: the promotion is still on its way


@dataclass(frozen=True, slots=True)
class SkillRequest:
    memory_id: str
    also: Sequence[str] = ()
    name: str | None = None
    description: str | None = None


class Skills:
    def __init__(self, reader: MemoryReader, update, clock: Clock) -> None:
        self._reader, self._update, self._clock = reader, update, clock

    async def crystallize(self, principal: Principal, request: SkillRequest, wait: Wait) -> Skill:
        require(principal, Action.UPDATE)
        procedures = await self._procedures(principal, request)
        name = skill_name(request.name, procedures[0])
        description = skill_description(request.description, procedures)
        outcomes = [
            await self._update(principal, m.id, MemoryChanges(promote=True), wait=wait)
            for m in procedures
        ]
        promoted = tuple(o.memory for o in outcomes)
        at = promoted[0].curation.promoted_at or self._clock.now()
        status = "accepted" if any(o.status == "accepted" for o in outcomes) else "crystallized"
        return Skill(name, render_skill(name, description, promoted, at), promoted, status)

    async def export(self, principal: Principal, request: SkillRequest) -> Skill:
        """The skill as the memories say now (read-only; crystallized_at: when promoted)."""
        procedures = await self._procedures(principal, request)
        name = skill_name(request.name, procedures[0])
        description = skill_description(request.description, procedures)
        at = procedures[0].curation.promoted_at or self._clock.now()
        return Skill(name, render_skill(name, description, procedures, at), tuple(procedures))

    async def candidates(
        self, principal: Principal, scope_path: str | None, cursor: str | None, limit: int
    ) -> Page:
        """One page of procedures (newest first), keeping those that earned promotion; a page
        may hold fewer than `limit` and still have a next_cursor."""
        selection = SelectionRequest(scope_path=scope_path, kinds=["procedure"])
        page = await self._reader.list(principal, selection, cursor, limit)
        return Page([m for m in page.items if is_promotion_candidate(m)], page.next_cursor)

    async def promoted(
        self, principal: Principal, scope_path: str | None, cursor: str | None, limit: int
    ) -> Page:
        """One page of procedures (newest first), keeping those crystallized into skills: the
        skills the caller may read. Like candidates, a page may be short and still go on."""
        selection = SelectionRequest(scope_path=scope_path, kinds=["procedure"])
        page = await self._reader.list(principal, selection, cursor, limit)
        return Page([m for m in page.items if m.curation.promoted_at], page.next_cursor)

    async def _procedures(self, principal: Principal, request: SkillRequest) -> list[Memory]:
        if problems := id_list_problems("also", list(request.also), MAX_EXTRA_PROCEDURES):
            raise InvalidInput(problems)
        ids = list(dict.fromkeys([request.memory_id, *request.also]))
        procedures = [await self._reader.get(principal, i) for i in ids]
        checked_procedures(procedures)
        return procedures
