"""Use case: an agent's hook answered (Claude Code's SessionStart and UserPromptSubmit), with
the context pack and recall the agent could have asked for itself; what each event gets is
in `memhive_domain.agent_hooks`.

A prompt is not given again what its session was shown: the gateway keeps, per session,
the ids it gave (the port `ShownInSessions`, a KV bucket every replica shares), and a
session idle 12 hours is forgotten.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from memhive_domain.agent_hooks import (
    PROMPT,
    RESUME,
    SESSION_START,
    HookEvent,
    RecalledNote,
    prompt_query,
    prompt_text,
    session_text,
)
from memhive_domain.bulletin import ids_in_bulletin
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest
from memhive_ports.agent_sessions import SessionKey, ShownInSessions

from memhive_query.use_cases.context import BuildContext
from memhive_query.use_cases.recall import RecallMemories


@dataclass(frozen=True, slots=True)
class HookRequest:
    event: HookEvent
    product_id: str | None
    scope_path: str | None
    budget: int
    limit: int
    min_confidence: float

    def where(self) -> str:
        if self.scope_path:
            return self.scope_path
        return f"product {self.product_id}" if self.product_id else "this workspace"


class AnswerAgentHook:
    def __init__(
        self, context: BuildContext, recall: RecallMemories, shown: ShownInSessions
    ) -> None:
        self._context, self._recall, self._shown = context, recall, shown

    async def __call__(self, principal: Principal, request: HookRequest) -> str | None:
        """The context to add, or None (nothing to add, or an event it does not answer)."""
        key = (principal.workspace_id, principal.user_id, request.event.session_id)
        if request.event.name == SESSION_START:
            return await self._opening(principal, request, key)
        if request.event.name == PROMPT:
            return await self._for_prompt(principal, request, key)
        return None

    async def _opening(
        self, principal: Principal, request: HookRequest, key: SessionKey
    ) -> str | None:
        pack = await self._context(
            principal, None, None, request.product_id, request.budget, scope_path=request.scope_path
        )
        # Not a blank bulletin. What was shown is read from the text as sent (the packed
        # memories are memory lines too), so a line cut to fit is not counted as shown.
        text = session_text(pack.text, request.where()) if ids_in_bulletin(pack.text) else None
        opened = ids_in_bulletin(text or "")
        # A resumed session's transcript still holds what it was shown; a new session, a
        # cleared one and a compacted one hold only this.
        held = await self._shown.ids(key) if request.event.source == RESUME else []
        await self._shown.keep(key, [*(held or ()), *opened])
        return text

    async def _for_prompt(
        self, principal: Principal, request: HookRequest, key: SessionKey
    ) -> str | None:
        query = prompt_query(request.event.prompt)
        if query is None:
            return None
        selection = SelectionRequest(product_id=request.product_id, scope_path=request.scope_path)
        recalled, held = await asyncio.gather(  # what was shown is read beside the recall
            self._recall(
                principal, query, selection, request.limit, min_confidence=request.min_confidence
            ),
            self._shown.ids(key),
        )
        shown = set(held or ())
        notes = [
            RecalledNote(r.memory, r.confidence, r.superseded_by, r.replaces)
            for r in recalled
            if r.memory.id not in shown
        ]
        text = prompt_text(notes) if notes else None
        added = ids_in_bulletin(text or "")
        if added and held is not None:  # unknown: writing would drop what was shown before
            await self._shown.keep(key, [*held, *added])
        return text
