"""link_memories: state how two memories relate (one updates or contradicts the other)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import MemoryId, present
from memhive_query.mcp.rendering import render_link
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply

EdgeKind = Literal["updates", "contradicts", "related_to"]


async def link_memories(
    api: MemoryApi,
    src_id: Annotated[
        MemoryId, Field(description="The memory the link starts from (e.g. the newer fact).")
    ],
    dst_id: Annotated[
        MemoryId, Field(description="The memory the link points to (e.g. the older fact).")
    ],
    kind: Annotated[
        EdgeKind,
        Field(
            description="updates: src is the newer version of dst (dst stops being recalled as "
            "current); contradicts: src and dst cannot both be true (the newer wins); "
            "related_to: worth reading together."
        ),
    ],
    rationale: Annotated[
        str | None,
        Field(max_length=500, description="One sentence on why, for whoever audits this later."),
    ] = None,
) -> ToolReply:
    result = await api.link(present(src_id=src_id, dst_id=dst_id, kind=kind, rationale=rationale))
    return ToolReply(render_link(result), result)


TOOL = MemoryTool(
    link_memories,
    title="Link two memories",
    description=(
        "Record how two memories relate, so recall never serves a stale fact as current: "
        "'updates' when src replaces dst, 'contradicts' when they conflict, 'related_to' when "
        "they belong together. Linking the same pair and kind twice changes nothing."
    ),
)
