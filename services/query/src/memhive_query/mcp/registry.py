"""Every MCP tool memhive offers. Adding a tool: one module in `tools/`, one line here."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from memhive_query.mcp.tool_spec import ApiForRequest, MemoryTool
from memhive_query.mcp.tools import (
    consolidate_memories,
    crystallize_memory,
    delete_state,
    flag_memory,
    forget_memory,
    get_context,
    get_memory,
    get_memory_bulletin,
    get_state,
    link_memories,
    list_memories,
    list_state,
    recall_memory,
    recent_activity,
    save_memory,
    set_state,
    update_memory,
)

TOOLS: tuple[MemoryTool, ...] = (
    save_memory.TOOL,
    recall_memory.TOOL,
    forget_memory.TOOL,
    get_memory.TOOL,
    list_memories.TOOL,
    link_memories.TOOL,
    get_memory_bulletin.TOOL,
    get_context.TOOL,
    update_memory.TOOL,
    flag_memory.TOOL,
    flag_memory.CONFIRM_TOOL,
    consolidate_memories.TOOL,
    crystallize_memory.TOOL,
    get_state.TOOL,
    set_state.TOOL,
    delete_state.TOOL,
    list_state.TOOL,
    recent_activity.TOOL,
)


def register_tools(
    server: MCPServer, api_for_request: ApiForRequest, tools: tuple[MemoryTool, ...] = TOOLS
) -> None:
    for tool in tools:
        server.add_tool(
            tool.bound_to(api_for_request),
            name=tool.name,
            title=tool.title,
            description=tool.description,
            annotations=tool.annotations,
            structured_output=False,
        )
