"""get_memory_bulletin: the standing briefing for a scope."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import ProductId, ScopeName, present
from memhive_query.mcp.rendering import render_bulletin
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def get_memory_bulletin(
    api: MemoryApi,
    scope: Annotated[
        ScopeName, Field(description="'global' for the whole workspace, 'product' for one product.")
    ],
    product_id: ProductId = None,
) -> ToolReply:
    bulletin = await api.bulletin(present(scope=scope, product_id=product_id))
    return ToolReply(render_bulletin(bulletin), bulletin)


TOOL = MemoryTool(
    get_memory_bulletin,
    title="Get the memory bulletin",
    description=(
        "Get the briefing for a scope: pinned memories, decisions, facts, preferences, goals "
        "and todos, most important first, each line with its memory id. Call it at the start "
        "of a session; it stays identical until memories in the scope change."
    ),
    read_only=True,
)
