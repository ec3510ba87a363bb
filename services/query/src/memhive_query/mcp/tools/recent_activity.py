"""recent_activity: what just happened in a scope, newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from memhive_domain.activity import MAX_PAGE
from pydantic import Field

from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.arguments import ScopePath, number_in, present
from memhive_query.mcp.tool_spec import MemoryTool, ToolReply
from memhive_query.request_types import ActivityKindName

Json = dict[str, Any]


async def recent_activity(
    api: MemoryApi,
    scope_path: ScopePath = None,
    kinds: Annotated[
        list[ActivityKindName] | None,
        Field(max_length=5, description="Only these kinds of activity. Omitted: all of them."),
    ] = None,
    since: Annotated[
        datetime | None,
        Field(description="Only what happened at or after this time (ISO 8601 with a zone)."),
    ] = None,
    cursor: Annotated[
        str | None,
        Field(min_length=1, max_length=64, description="The next_cursor of the previous page."),
    ] = None,
    limit: Annotated[number_in(int, 1, MAX_PAGE), Field(description="Entries per page.")] = 20,
) -> ToolReply:
    fields = present(scope=scope_path, kind=kinds, cursor=cursor, limit=limit)
    if since is not None:
        fields["since"] = since.isoformat()
    page = await api.activity(fields)
    return ToolReply(render_activity(page), page)


def render_activity(page: Json) -> str:
    items = page.get("items", [])
    text = "\n".join(map(activity_line, items)) if items else "No activity found here."
    if page.get("next_cursor"):
        text += f"\nMore (older): call recent_activity again with cursor={page['next_cursor']!r}."
    return text


def activity_line(entry: Json) -> str:
    by = f" by {entry['actor']}" if entry.get("actor") else ""
    head = f"- {entry['time']} {entry['kind']}{by}: "
    if entry["edges"]:
        return head + "; ".join(
            f"[{e['src_id']}] {e['kind']} [{e['dst_id']}]" for e in entry["edges"]
        )
    memories = ", ".join(map(_memory, entry["memories"]))
    extra = f" (query: {entry['query']!r})" if entry.get("query") else ""
    extra += f" (reason: {entry['reason']})" if entry.get("reason") else ""
    return head + memories + extra


def _memory(memory: Json) -> str:
    text = f"[{memory['id']}] {memory['kind']} at {memory['scope_path']}"
    return text + (f": {memory['summary']}" if memory.get("summary") else " (gone)")


TOOL = MemoryTool(
    recent_activity,
    title="Recent activity",
    description=(
        "What just happened here: memories saved, updated, forgotten, linked and recalled, "
        "newest first, with who did it, optionally in one scope, of some kinds, or since a "
        "time. Use it at the start of a session to catch up on what other agents did. Only "
        "what you may read is shown; pass the returned next_cursor for older activity."
    ),
    read_only=True,
)
