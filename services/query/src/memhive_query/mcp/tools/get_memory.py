"""get_memory: one memory in full, by id."""

from __future__ import annotations

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import MemoryId
from memhive_query.mcp.rendering import render_memory
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def get_memory(api: MemoryApi, id: MemoryId) -> ToolReply:
    memory = await api.get(id)
    return ToolReply(render_memory(memory), memory)


TOOL = MemoryTool(
    get_memory,
    title="Get a memory",
    description=(
        "Read one memory in full by its id: body, kind, scope, tags, importance, who saved it "
        "and when. Use it when a recalled line was cut short or to check a memory's details."
    ),
    read_only=True,
)
