"""Use case: an agent's hook answered (Claude Code's SessionStart and UserPromptSubmit), with
the context pack and recall the agent could have asked for itself; what each event gets is
in `memhive_domain.agent_hooks`.

A prompt is not given again what its session was shown: the gateway remembers, per session,
the ids it gave (`ShownInSessions`). That memory is this process's, bounded and forgotten
on restart: behind several gateways, or after one restarts, a memory may be shown twice,
which costs a line of context and nothing else.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memhive_domain.agent_hooks import (
    PROMPT,
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

from memhive_query.use_cases.context import BuildContext
from memhive_query.use_cases.recall import RecallMemories

SessionKey = tuple[str, str, str]  # workspace, user, the agent's session id


class ShownInSessions:
    """The memory ids each session was shown, least recently used sessions dropped first.
    At most `max_sessions` x `max_ids` ids (~40 MB at the defaults, in the worst case)."""

    def __init__(
        self,
        *,
        max_sessions: int = 2_000,
        max_ids: int = 200,
        idle_s: float = 12 * 3600,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_sessions, self._max_ids, self._idle_s = max_sessions, max_ids, idle_s
        self._monotonic = monotonic
        self._sessions: OrderedDict[SessionKey, tuple[float, dict[str, None]]] = OrderedDict()

    def ids(self, key: SessionKey) -> set[str]:
        return set(self._live(key))

    def add(self, key: SessionKey, memory_ids: Iterable[str]) -> None:
        self._keep(key, [*self._live(key), *memory_ids])

    def start_over(self, key: SessionKey, memory_ids: Iterable[str]) -> None:
        """A new context (a session started, cleared or compacted): only these were shown."""
        self._keep(key, list(memory_ids))

    def _live(self, key: SessionKey) -> dict[str, None]:
        """The session's ids, none once it has been idle too long."""
        held = self._sessions.get(key)
        if held is None or self._monotonic() - held[0] > self._idle_s:
            return {}
        return held[1]

    def _keep(self, key: SessionKey, memory_ids: list[str]) -> None:
        kept = dict.fromkeys(memory_ids[-self._max_ids :])
        self._sessions[key] = (self._monotonic(), kept)
        self._sessions.move_to_end(key)
        while len(self._sessions) > self._max_sessions:
            self._sessions.popitem(last=False)


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
        self._shown.start_over(key, ids_in_bulletin(text or ""))
        return text

    async def _for_prompt(
        self, principal: Principal, request: HookRequest, key: SessionKey
    ) -> str | None:
        query = prompt_query(request.event.prompt)
        if query is None:
            return None
        selection = SelectionRequest(product_id=request.product_id, scope_path=request.scope_path)
        recalled = await self._recall(
            principal, query, selection, request.limit, min_confidence=request.min_confidence
        )
        shown = self._shown.ids(key)
        notes = [
            RecalledNote(r.memory, r.confidence, r.superseded_by, r.replaces)
            for r in recalled
            if r.memory.id not in shown
        ]
        text = prompt_text(notes) if notes else None
        self._shown.add(key, ids_in_bulletin(text or ""))
        return text
