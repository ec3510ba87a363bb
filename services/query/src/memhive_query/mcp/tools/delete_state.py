"""delete_state: remove a key/value entry from a scope."""

from __future__ import annotations

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import Revision, StateKey, StateScope, present
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def delete_state(
    api: MemoryApi, scope: StateScope, key: StateKey, revision: Revision = None
) -> ToolReply:
    result = await api.delete_state(scope, key, present(revision=revision))
    return ToolReply(f"Deleted {result['scope']}/{result['key']}.", result)


TOOL = MemoryTool(
    delete_state,
    title="Delete a state value",
    description=(
        "Remove the value stored under a key at a scope. Pass the revision you read to delete "
        "it only if nobody changed it since."
    ),
    destructive=True,
)
