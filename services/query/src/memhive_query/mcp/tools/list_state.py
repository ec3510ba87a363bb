"""list_state: the keys stored at a scope, a page at a time."""

from __future__ import annotations

from typing import Annotated

from memhive_domain.kv import MAX_PAGE
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import StateScope, number_in, present
from memhive_query.mcp.state_rendering import render_state_list
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def list_state(
    api: MemoryApi,
    scope: StateScope,
    include_values: Annotated[
        bool, Field(description="Also return each value (long ones are shortened in the text).")
    ] = False,
    cursor: Annotated[
        str | None,
        Field(min_length=1, max_length=64, description="The next_cursor of the previous page."),
    ] = None,
    limit: Annotated[number_in(int, 1, MAX_PAGE), Field(description="Keys per page.")] = 20,
) -> ToolReply:
    fields = present(scope=scope, cursor=cursor, limit=limit)
    if include_values:
        fields["include_values"] = True
    page = await api.list_state(fields)
    return ToolReply(render_state_list(page), page)


TOOL = MemoryTool(
    list_state,
    title="List state keys",
    description=(
        "List the keys stored at a scope (key/value memory), in the order they were last "
        "written, with their revisions and expiry. Pass the returned next_cursor for more."
    ),
    read_only=True,
)
