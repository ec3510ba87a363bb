"""list_memories: browse memories by kind, scope or tag, a page at a time."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import (
    HappenedAfter,
    HappenedBefore,
    KindName,
    OptionalScope,
    ProductId,
    SavedAfter,
    SavedBefore,
    ScopePath,
    number_in,
    present,
)
from memhive_query.mcp.rendering import render_list
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def list_memories(
    api: MemoryApi,
    kind: Annotated[KindName | None, Field(description="Only this kind of memory.")] = None,
    scope: OptionalScope = None,
    product_id: ProductId = None,
    scope_path: ScopePath = None,
    tag: Annotated[
        str | None, Field(min_length=1, max_length=64, description="Only memories with this tag.")
    ] = None,
    cursor: Annotated[
        str | None,
        Field(min_length=1, description="The next_cursor of the previous page, to continue."),
    ] = None,
    limit: Annotated[number_in(int, 1, 100), Field(description="Memories per page, 1..100.")] = 20,
    occurred_after: HappenedAfter = None,
    occurred_before: HappenedBefore = None,
    created_after: SavedAfter = None,
    created_before: SavedBefore = None,
) -> ToolReply:
    fields = present(
        kind=kind,
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        tag=tag,
        cursor=cursor,
        limit=limit,
        occurred_after=occurred_after,
        occurred_before=occurred_before,
        created_after=created_after,
        created_before=created_before,
    )
    page = await api.list(fields)
    return ToolReply(render_list(page), page)


TOOL = MemoryTool(
    list_memories,
    title="List memories",
    description=(
        "List stored memories, newest first, optionally only one kind, scope, product or tag. "
        "Unlike recall_memory it does not rank by relevance; use it to review or audit what "
        "is remembered. Pass the returned next_cursor to get the next page."
    ),
    read_only=True,
)
