"""consolidate_memories: merge several memories into one that replaces them."""

from __future__ import annotations

from typing import Annotated

from memhive_domain.consolidation import MAX_SOURCES, MIN_SOURCES
from memhive_domain.memory import MAX_BODY_CHARS
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import Importance, MemoryId, Tags, present
from memhive_query.mcp.rendering import render_consolidated
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def consolidate_memories(
    api: MemoryApi,
    ids: Annotated[
        list[MemoryId],
        Field(
            min_length=MIN_SOURCES,
            max_length=MAX_SOURCES,
            description="The memories to merge (2..20), all from one scope.",
        ),
    ],
    body: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_BODY_CHARS,
            description="The merged memory, self-contained. Omitted: summarize must be true.",
        ),
    ] = None,
    summarize: Annotated[
        bool, Field(description="Let memhive's configured LLM write the merged body.")
    ] = False,
    importance: Importance = None,
    tags: Tags = None,
) -> ToolReply:
    fields = present(ids=ids, body=body, importance=importance, tags=tags)
    if summarize:
        fields["summarize"] = True
    result = await api.consolidate(fields)
    return ToolReply(render_consolidated(result), result)


TOOL = MemoryTool(
    consolidate_memories,
    title="Consolidate memories",
    description=(
        "Merge several overlapping or fragmentary memories of one scope into a single new "
        "memory that updates each of them, in one step: recall then returns the merged memory "
        "instead of the fragments, and their history stays auditable."
    ),
)
