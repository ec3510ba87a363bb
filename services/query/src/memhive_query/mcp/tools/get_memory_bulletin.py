"""get_memory_bulletin: the standing briefing for a scope."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import ProductId, ScopeName, ScopePath, present
from memhive_query.mcp.rendering import render_bulletin
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def get_memory_bulletin(
    api: MemoryApi,
    scope: Annotated[
        ScopeName | None,
        Field(
            description="'global' for the whole workspace, 'product' for one product. "
            "Omitted: scope_path, else 'global'."
        ),
    ] = None,
    product_id: ProductId = None,
    scope_path: ScopePath = None,
) -> ToolReply:
    bulletin = await api.bulletin(
        present(scope=scope, product_id=product_id, scope_path=scope_path)
    )
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
