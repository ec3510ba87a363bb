"""/v1/hooks/claude-code: what Claude Code's hooks are answered, over HTTP (an `http` hook,
for UserPromptSubmit) or through `memhive hook claude-code` (a `command` hook, the only kind
Claude Code runs at SessionStart). README, "Claude Code: memories without asking"."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from memhive_domain.agent_hooks import (
    DEFAULT_BUDGET,
    DEFAULT_LIMIT,
    DEFAULT_MIN_CONFIDENCE,
    MAX_EVENT_NAME_CHARS,
    MAX_SESSION_ID_CHARS,
    MAX_SOURCE_CHARS,
    HookEvent,
)
from memhive_domain.context_pack import MAX_TOKEN_BUDGET
from memhive_domain.recall import MAX_RESULTS
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.request_types import OptionalProductId, OptionalScopePath
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.use_cases.agent_hooks import HookRequest

router = APIRouter(prefix="/v1/hooks", tags=["hooks"], responses=errors(401, 413, 422))


class ClaudeCodeHookInput(BaseModel):
    """The hook's input as Claude Code sends it; the fields not named here are ignored
    (`cwd`, `transcript_path`, ... and whatever later versions add)."""

    model_config = ConfigDict(extra="ignore")

    hook_event_name: str = Field(
        min_length=1, max_length=MAX_EVENT_NAME_CHARS, description="SessionStart, ..."
    )
    session_id: str = Field("", max_length=MAX_SESSION_ID_CHARS)
    source: str = Field("", max_length=MAX_SOURCE_CHARS, description="startup, compact, ...")
    prompt: str = Field("", description="UserPromptSubmit's; its first 2,000 characters count")


@router.post("/claude-code", responses=errors(403))
async def claude_code_hook(
    event: ClaudeCodeHookInput,
    gw: GatewayDep,
    who: PrincipalDep,
    product_id: Annotated[OptionalProductId | None, Query()] = None,
    scope_path: Annotated[OptionalScopePath | None, Query()] = None,
    budget: Annotated[int, Query(ge=1, le=MAX_TOKEN_BUDGET)] = DEFAULT_BUDGET,
    limit: Annotated[int, Query(ge=1, le=MAX_RESULTS)] = DEFAULT_LIMIT,
    min_confidence: Annotated[float, Query(ge=0, le=1)] = DEFAULT_MIN_CONFIDENCE,
) -> dict:
    """SessionStart: the node's context pack within `budget` tokens. UserPromptSubmit: at
    most `limit` memories recalled with the prompt at `min_confidence` or more, none this
    session (`session_id`) was given already. Answers `{"hookSpecificOutput": {...,
    "additionalContext": text}}`, or `{}` when there is nothing to add (or another event)."""
    request = HookRequest(
        HookEvent(event.hook_event_name, event.session_id, event.source, event.prompt),
        product_id,
        scope_path,
        budget,
        limit,
        min_confidence,
    )
    text = await gw.agent_hook(who, request)
    if text is None:
        return {}
    return {
        "hookSpecificOutput": {"hookEventName": event.hook_event_name, "additionalContext": text}
    }
