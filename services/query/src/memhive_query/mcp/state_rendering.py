"""Text the model reads about key/value memory: where an entry lives, its revision (what a
compare-and-set needs) and its value as compact JSON."""

from __future__ import annotations

import json
from typing import Any

from memhive_query.mcp.rendering import counted

Json = dict[str, Any]

MAX_LISTED_VALUE = 300


def entry_line(entry: Json) -> str:
    """`- scope/key (revision N, by U, expires T)`: what a listing shows of one entry."""
    notes = [f"revision {entry['revision']}", f"{entry['size']} bytes", f"by {entry['updated_by']}"]
    if entry.get("expires_at"):
        notes.append(f"expires {entry['expires_at']}")
    line = f"- {entry['key']} ({', '.join(notes)})"
    if "value" in entry:
        line += f": {_compact(entry['value'], MAX_LISTED_VALUE)}"
    return line


def render_entry(entry: Json) -> str:
    where = f"{entry['scope']}/{entry['key']}"
    expiry = f", expires {entry['expires_at']}" if entry.get("expires_at") else ""
    return (
        f"{where} at revision {entry['revision']} (by {entry['updated_by']}, "
        f"{entry['updated_at']}{expiry}):\n{_compact(entry['value'])}"
    )


def render_written(entry: Json) -> str:
    return (
        f"Stored {entry['scope']}/{entry['key']} at revision {entry['revision']}. To change it "
        f"only if nobody else has since, pass revision={entry['revision']} next time."
    )


def render_state_list(page: Json) -> str:
    items = page.get("items", [])
    if not items:
        text = f"No keys at {page['scope']}."
    else:
        keys = counted(len(items), "key", "keys")
        text = f"{keys} at {page['scope']}:\n" + "\n".join(map(entry_line, items))
    if page.get("next_cursor"):
        text += f"\nMore: call list_state again with cursor={page['next_cursor']!r}."
    return text


def _compact(value: Any, limit: int | None = None) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"
