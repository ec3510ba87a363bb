"""get_state: read one key/value entry of a scope."""

from __future__ import annotations

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import StateKey, StateScope
from memhive_query.mcp.state_rendering import render_entry
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def get_state(api: MemoryApi, scope: StateScope, key: StateKey) -> ToolReply:
    entry = await api.get_state(scope, key)
    return ToolReply(render_entry(entry), entry)


TOOL = MemoryTool(
    get_state,
    title="Get a state value",
    description=(
        "Read the JSON value stored under a key at a scope (key/value memory: structured "
        "state such as a plan's progress or a setting, shared by the agents of that scope). "
        "Returns the value and its revision; not found if the key was never set, was deleted "
        "or has expired."
    ),
    read_only=True,
)
