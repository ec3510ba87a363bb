"""update_memory: change a memory in place (a new revision), rather than saving a new one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from memhive_domain.memory import MAX_BODY_CHARS
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import (
    Importance,
    MemoryId,
    OccurredAt,
    Tags,
    Visibility_,
    present,
)
from memhive_query.mcp.rendering import render_updated
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def update_memory(
    api: MemoryApi,
    id: MemoryId,
    body: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_BODY_CHARS,
            description="The corrected text. Omitted: the body stays.",
        ),
    ] = None,
    importance: Importance = None,
    tags: Tags = None,
    pinned: Annotated[
        bool | None, Field(description="Pin it to lead its scope's bulletin.")
    ] = None,
    visibility: Visibility_ = None,
    expires_at: Annotated[
        datetime | None, Field(description="When it stops being true (a future time, ISO 8601).")
    ] = None,
    never_expires: Annotated[bool, Field(description="Remove the expiry.")] = False,
    occurred_at: OccurredAt = None,
    force: Annotated[
        bool, Field(description="Change the body even if another memory says nearly the same.")
    ] = False,
) -> ToolReply:
    fields = present(
        body=body,
        importance=importance,
        tags=tags,
        pinned=pinned,
        visibility=visibility,
        expires_at=expires_at,
        occurred_at=occurred_at,
    )
    if never_expires:
        fields["expires_at"] = None
    if force:
        fields["force"] = True
    result = await api.update(id, fields)
    return ToolReply(render_updated(result), result)


TOOL = MemoryTool(
    update_memory,
    title="Update a memory",
    description=(
        "Correct or adjust one memory in place: its body, importance, tags, pin, visibility or "
        "expiry. Only the fields you give change; the old version stays in its history. Use it "
        "to fix a memory; for a new fact that replaces an old one, save_memory with supersedes."
    ),
)
