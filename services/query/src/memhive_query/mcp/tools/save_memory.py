"""save_memory: remember one typed fact, decision, preference... for later sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from memhive_query.mcp.api import MemoryApi, NearDuplicatesFound
from memhive_query.mcp.arguments import (
    Body,
    Importance,
    Kind,
    MemoryId,
    OccurredAt,
    OptionalScope,
    ProductId,
    ScopePath,
    SourceRef,
    Tags,
    Visibility_,
    present,
)
from memhive_query.mcp.rendering import render_near_duplicates, render_saved
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def save_memory(
    api: MemoryApi,
    kind: Kind,
    body: Body,
    importance: Importance = None,
    pinned: Annotated[
        bool | None, Field(description="Always show in bulletins and context packs. Default false.")
    ] = None,
    tags: Tags = None,
    scope: OptionalScope = None,
    product_id: ProductId = None,
    scope_path: ScopePath = None,
    visibility: Visibility_ = None,
    source_ref: SourceRef = None,
    expires_at: Annotated[
        datetime | None,
        Field(description="When this stops being true, ISO-8601, e.g. '2026-01-31T00:00:00Z'."),
    ] = None,
    occurred_at: OccurredAt = None,
    supersedes: Annotated[
        list[MemoryId] | None,
        Field(
            max_length=20,
            description="Ids of memories this one replaces (they stop being recalled as current).",
        ),
    ] = None,
    force: Annotated[
        bool | None, Field(description="Save even though similar memories exist. Default false.")
    ] = None,
) -> ToolReply:
    fields = present(
        kind=kind,
        body=body,
        importance=importance,
        pinned=pinned,
        tags=tags,
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        visibility=visibility,
        source_ref=source_ref,
        expires_at=expires_at,
        occurred_at=occurred_at,
        supersedes=supersedes,
        force=force,
    )
    try:
        result = await api.save(fields)
    except NearDuplicatesFound as conflict:
        return _near_duplicates(conflict)
    return ToolReply(render_saved(result), result)


def _near_duplicates(conflict: NearDuplicatesFound) -> ToolReply:
    data = {"status": "near_duplicate", "detail": conflict.message, "similar": conflict.similar}
    return ToolReply(render_near_duplicates(conflict.message, conflict.similar), data)


TOOL = MemoryTool(
    save_memory,
    title="Save a memory",
    description=(
        "Remember one thing for future sessions and other agents: a fact, decision, preference, "
        "identity, event, observation, goal, todo or procedure. Write the body as a single "
        "self-contained statement. Returns the new memory's id once it can be recalled. If "
        "similar memories already exist nothing is saved and they are listed: retry with "
        "supersedes=[ids] when yours replaces them, or force=true when it is genuinely "
        "different (it is then linked to them as a near-duplicate)."
    ),
)
