"""set_state: store a JSON value under a key at a scope, optionally only if unchanged."""

from __future__ import annotations

from typing import Annotated, Any

from memhive_domain.kv import MAX_TTL_S, MIN_TTL_S
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import Revision, StateKey, StateScope, number_in, present
from memhive_query.mcp.state_rendering import render_written
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def set_state(
    api: MemoryApi,
    scope: StateScope,
    key: StateKey,
    value: Annotated[
        Any,
        Field(
            description="Any JSON value (object, array, string, number, true/false, null), "
            "at most 16 KiB as JSON and 16 levels deep."
        ),
    ],
    ttl_s: Annotated[
        number_in(int, MIN_TTL_S, MAX_TTL_S) | None,
        Field(description="Seconds until the value expires and disappears. Omitted: it stays."),
    ] = None,
    revision: Revision = None,
    create_only: Annotated[
        bool, Field(description="Store only if the key does not exist yet (else a conflict).")
    ] = False,
) -> ToolReply:
    fields = {"value": value} | present(ttl_s=ttl_s, revision=revision)  # null is a value too
    if create_only:
        fields["create_only"] = True
    entry = await api.set_state(scope, key, fields)
    return ToolReply(render_written(entry), entry)


TOOL = MemoryTool(
    set_state,
    title="Set a state value",
    description=(
        "Store a JSON value under a key at a scope, replacing the previous value. For "
        "structured state (progress, settings, handles), not for facts: save_memory keeps "
        "those. Pass the revision you read to update only if nobody changed it since "
        "(a conflict means: read it again, then decide), or create_only to claim a new key."
    ),
)
