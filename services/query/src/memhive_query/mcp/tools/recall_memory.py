"""recall_memory: the memories most relevant to a question, current facts only."""

from __future__ import annotations

from typing import Annotated

from memhive_domain.confidence import DEFAULT_MIN_CONFIDENCE
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import (
    HappenedAfter,
    HappenedBefore,
    KindName,
    OptionalScope,
    ProductId,
    SavedAfter,
    SavedBefore,
    ScopePath,
    Tags,
    number_in,
    present,
)
from memhive_query.mcp.rendering import render_recall
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def recall_memory(
    api: MemoryApi,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=2000,
            description="What you want to know, in natural language or keywords.",
        ),
    ],
    kinds: Annotated[
        list[KindName] | None, Field(description="Only these kinds of memory. Omitted: every kind.")
    ] = None,
    scope: OptionalScope = None,
    product_id: ProductId = None,
    scope_path: ScopePath = None,
    tags: Tags = None,
    max_results: Annotated[
        number_in(int, 1, 20), Field(description="How many memories to return, 1..20.")
    ] = 6,
    include_superseded: Annotated[
        bool, Field(description="Also return memories replaced by newer ones (for audits).")
    ] = False,
    occurred_after: HappenedAfter = None,
    occurred_before: HappenedBefore = None,
    created_after: SavedAfter = None,
    created_before: SavedBefore = None,
    min_confidence: Annotated[
        number_in(float, 0, 1),
        Field(
            description="Leave out memories less likely than this (0..1) to answer the query. "
            "An empty answer then means nothing stored answers it; 0 returns every match.",
        ),
    ] = DEFAULT_MIN_CONFIDENCE,  # agents act on what recall returns (confidence.py)
) -> ToolReply:
    fields = present(
        query=query,
        kinds=kinds,
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        tags=tags,
        max_results=max_results,
        include_superseded=include_superseded or None,
        occurred_after=occurred_after,
        occurred_before=occurred_before,
        created_after=created_after,
        created_before=created_before,
        min_confidence=min_confidence,
    )
    result = await api.recall(fields)
    return ToolReply(render_recall(result["results"]), result)


TOOL = MemoryTool(
    recall_memory,
    title="Recall memories",
    description=(
        "Search shared memory for what is known about a topic. Returns the best matching "
        "memories, best first, each with its id, kind, relevance score, confidence (how "
        "likely it answers the query) and body; nothing back means nothing stored answers "
        "it. Outdated "
        "facts are replaced by their newer versions. Use this before deciding something that "
        "may already have been decided, or to pick up where another session left off."
    ),
    read_only=True,
)
