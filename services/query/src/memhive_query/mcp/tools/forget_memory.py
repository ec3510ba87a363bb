"""forget_memory: remove one memory from every index."""

from __future__ import annotations

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import MemoryId
from memhive_query.mcp.rendering import render_forgotten
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def forget_memory(api: MemoryApi, id: MemoryId) -> ToolReply:
    result = await api.forget(id)
    return ToolReply(render_forgotten(result), result)


TOOL = MemoryTool(
    forget_memory,
    title="Forget a memory",
    description=(
        "Permanently forget one memory by id: it disappears from recall, lists and bulletins "
        "for everyone. Use it for memories that are wrong or must not be kept; for facts that "
        "merely changed, save the new fact with supersedes=[old id] instead."
    ),
    destructive=True,
)
