"""get_context: the bulletin plus the memories most relevant to a task, within a token budget."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import (
    HappenedAfter,
    HappenedBefore,
    OptionalScope,
    ProductId,
    SavedAfter,
    SavedBefore,
    ScopePath,
    number_in,
    present,
)
from memhive_query.mcp.rendering import render_context
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def get_context(
    api: MemoryApi,
    token_budget: Annotated[
        number_in(int, 1, 32000),
        Field(description="The most tokens the pack may use, e.g. 2000."),
    ],
    query: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=2000,
            description="The task at hand; memories relevant to it are preferred.",
        ),
    ] = None,
    scope: OptionalScope = None,
    product_id: ProductId = None,
    scope_path: ScopePath = None,
    occurred_after: HappenedAfter = None,
    occurred_before: HappenedBefore = None,
    created_after: SavedAfter = None,
    created_before: SavedBefore = None,
) -> ToolReply:
    fields = present(
        query=query,
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        token_budget=token_budget,
        occurred_after=occurred_after,
        occurred_before=occurred_before,
        created_after=created_after,
        created_before=created_before,
    )
    pack = await api.context(fields)
    return ToolReply(render_context(pack), pack)


TOOL = MemoryTool(
    get_context,
    title="Get a context pack",
    description=(
        "Get what you should know for a task in one call, fitted to a token budget: pinned "
        "memories, then important ones, then those relevant to the query. Each item cites its "
        "memory id."
    ),
    read_only=True,
)
