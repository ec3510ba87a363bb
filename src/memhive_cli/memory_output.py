"""What the memory commands print: readable text for people, or with `--json` the API's own
JSON answer (the REST shapes, so a script reads the same fields as with curl)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memhive_cli.table import format_table

if TYPE_CHECKING:
    from memhive_client import (
        ContextPack,
        ForgetResult,
        Memory,
        MemoryPage,
        RecalledMemory,
        SaveResult,
    )
    from pydantic import BaseModel

BODY_CHARS = 100  # a body in a table row; `memhive get` shows it whole


def as_json(answer: BaseModel | dict) -> str:
    return json.dumps(_plain(answer), indent=2, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def saved_text(result: SaveResult) -> str:
    where = result.memory.scope_path
    if result.status == "duplicate":
        return f"already saved as {result.id} ({where}): the same body in the same scope"
    if result.status == "accepted":
        return f"accepted {result.id} ({where}): it will be stored shortly"
    return f"saved {result.id} ({where}, {result.status})"


def recalled_text(hits: Sequence[RecalledMemory]) -> str:
    if not hits:
        return (
            "No memory matches: nothing stored seems to answer this "
            "(--min-confidence 0 shows weaker matches)"
        )
    rows = [("CONFIDENCE", "KIND", "SCOPE", "ID", "MEMORY")]
    rows += [(f"{h.confidence:.2f}", h.kind, h.scope_path, h.id, _body_with_marks(h)) for h in hits]
    return format_table(rows)


def context_text(pack: ContextPack) -> str:
    return pack.text.strip() or "Nothing here yet: no bulletin, no memory."


def page_text(page: MemoryPage) -> str:
    if not page.items:
        return "No memories here."
    rows = [("CREATED", "KIND", "SCOPE", "ID", "MEMORY")]
    rows += [(_day(m.created_at), m.kind, m.scope_path, m.id, _short(m.body)) for m in page.items]
    text = format_table(rows)
    shown = f"{_count(len(page.items), 'memory', 'memories')} shown"
    if page.next_cursor:
        return f"{text}\n{shown}; more: memhive list --cursor {page.next_cursor} (same filters)"
    return f"{text}\n{shown}"


def memory_text(memory: Memory) -> str:
    details = [
        ("kind", memory.kind),
        ("scope", memory.scope_path),
        ("visibility", memory.visibility),
        ("importance", f"{memory.importance:.2f}"),
        ("pinned", "yes" if memory.pinned else "no"),
        ("tags", ", ".join(memory.tags) or "-"),
        ("source", memory.source + (f" ({memory.source_ref})" if memory.source_ref else "")),
        ("created", f"{_moment(memory.created_at)} by {memory.created_by}"),
        ("updated", f"{_moment(memory.updated_at)}, revision {memory.revision}"),
        ("occurred", _moment(memory.occurred_at) if memory.occurred_at else "when saved"),
        ("expires", _moment(memory.expires_at) if memory.expires_at else "never"),
        ("trust", f"{memory.trust:.2f} ({_count(len(memory.flags), 'flag', 'flags')})"),
        ("staleness", f"{memory.staleness:.2f}"),
        ("recalled", _count(memory.access_count, "time", "times")),
    ]
    width = max(len(name) for name, _ in details)
    lines = [f"{name.ljust(width)}  {value}" for name, value in details]
    return "\n".join([memory.id, *lines, "", memory.body])


def forgotten_text(result: ForgetResult) -> str:
    if result.status == "accepted":
        return f"forgetting {result.id}: accepted, it will be gone from every index shortly"
    return f"forgot {result.id}: gone from recall, lists and bulletins (its history is kept)"


def _body_with_marks(hit: RecalledMemory) -> str:
    marks = [f"replaces {', '.join(hit.replaces)}"] if hit.replaces else []
    marks += [f"superseded by {hit.superseded_by}"] if hit.superseded_by else []
    return _short(hit.body) + (f"  [{'; '.join(marks)}]" if marks else "")


def _short(body: str) -> str:
    flat = " ".join(body.split())
    return flat if len(flat) <= BODY_CHARS else flat[: BODY_CHARS - 1] + "…"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
