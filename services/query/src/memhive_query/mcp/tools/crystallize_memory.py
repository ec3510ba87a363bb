"""crystallize_memory: turn procedures that keep working into a skill (SKILL.md)."""

from __future__ import annotations

from typing import Annotated

from memhive_domain.skills import MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import MemoryId, present
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply


async def crystallize_memory(
    api: MemoryApi,
    id: MemoryId,
    also: Annotated[
        list[MemoryId] | None,
        Field(max_length=19, description="More procedure ids to include in the same skill."),
    ] = None,
    name: Annotated[
        str | None,
        Field(
            max_length=MAX_NAME_CHARS,
            description="The skill's name: lowercase words joined by '-', e.g. 'cut-a-release'. "
            "Omitted: taken from the procedure.",
        ),
    ] = None,
    description: Annotated[
        str | None,
        Field(
            max_length=MAX_DESCRIPTION_CHARS,
            description="When to use the skill. Omitted: the procedure's text.",
        ),
    ] = None,
) -> ToolReply:
    result = await api.crystallize(id, present(also=also, name=name, description=description))
    text = (
        f"Crystallized into skill {result['name']!r} (save it as {result['filename']}; "
        f"download: {result['download']}):\n\n{result['skill_md']}"
    )
    return ToolReply(text, result)


TOOL = MemoryTool(
    crystallize_memory,
    title="Crystallize a procedure into a skill",
    description=(
        "Turn a procedure memory (or several) that has proven itself into a reusable skill: "
        "returns a SKILL.md with front matter, numbered steps and provenance, and marks the "
        "memories promoted. Use confirm_memory after a recalled procedure works, so the "
        "best procedures become candidates."
    ),
)
