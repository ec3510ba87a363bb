"""flag_memory and confirm_memory: verdicts on a recalled memory, which move its trust (and
so its rank in recall) for every agent: each needs the memory's node writable, like any
other change of it."""

from __future__ import annotations

from typing import Annotated

from memhive_domain.curation import MAX_FLAG_REASON_CHARS
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import MemoryId
from memhive_query.mcp.rendering import render_confirmed, render_flagged
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply
from memhive_query.request_types import FlagKindName


async def flag_memory(
    api: MemoryApi,
    id: MemoryId,
    kind: Annotated[
        FlagKindName,
        Field(
            description="wrong: it states something false; outdated: it was true once; "
            "unverified: nobody has checked it."
        ),
    ],
    reason: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_FLAG_REASON_CHARS,
            description="What is wrong, in a sentence, for whoever fixes it.",
        ),
    ],
) -> ToolReply:
    result = await api.flag(id, {"kind": kind, "reason": reason})
    return ToolReply(render_flagged(result), result)


async def confirm_memory(api: MemoryApi, id: MemoryId) -> ToolReply:
    result = await api.confirm(id)
    return ToolReply(render_confirmed(result), result)


TOOL = MemoryTool(
    flag_memory,
    title="Flag a memory",
    description=(
        "Mark a memory you found wrong, outdated or unverified, with the reason. It stays "
        "readable but loses trust, so recall ranks it below trusted memories, and the flag is "
        "shown to every agent until someone fixes the memory and clears it. Only where you "
        "may write: a memory of a node you only read is refused."
    ),
)

CONFIRM_TOOL = MemoryTool(
    confirm_memory,
    title="Confirm a memory",
    description=(
        "Report that a memory you recalled held true (e.g. a procedure worked). It gains "
        "trust and counts towards promoting a procedure into a skill. Only where you may "
        "write: a memory of a node you only read is refused."
    ),
)
