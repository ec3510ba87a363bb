"""Text the model reads: memories as short lines that lead with their id.

Structured content carries the full JSON; this text is what most agents act on,
so it names ids (to forget, link or supersede) and says what to do next.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Json = dict[str, Any]

MAX_LINE_BODY = 500

ERROR_LABELS = {
    401: "Not authenticated",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    422: "Invalid arguments",
}


def render_error(status: int, message: str) -> str:
    label = ERROR_LABELS.get(status) or _fallback_label(status)
    return f"{label} ({status}): {message}"


def _fallback_label(status: int) -> str:
    return "memhive is unavailable" if status >= 500 else "Request refused"


def memory_line(memory: Json) -> str:
    """`- [id] kind (score, where, flags): body`, the body cut to a readable length."""
    notes = ", ".join(_notes(memory))
    return f"- [{memory['id']}] {memory['kind']} ({notes}): {_shorten(memory['body'])}"


def _notes(memory: Json) -> Iterable[str]:
    if memory.get("score") is not None:
        yield f"score {memory['score']:.2f}"
    if memory.get("confidence") is not None:
        yield f"confidence {memory['confidence']:.2f}"
    yield _where(memory)
    if memory.get("occurred_at"):
        yield f"happened {memory['occurred_at']}"
    if memory.get("pinned"):
        yield "pinned"
    if memory.get("trust") is not None:
        yield f"trust {memory['trust']:.2f}"
    if memory.get("flags"):
        yield "FLAGGED " + ", ".join(sorted({f["kind"] for f in memory["flags"]}))
    if memory.get("replaces"):
        yield "replaces " + ", ".join(memory["replaces"])
    if memory.get("superseded_by"):
        yield f"SUPERSEDED by {memory['superseded_by']}"


def _where(memory: Json) -> str:
    if memory.get("scope_path"):
        return str(memory["scope_path"])
    product = memory.get("product_id")
    return f"product:{product}" if product else str(memory.get("scope", "global"))


def _shorten(body: str) -> str:
    flat = " ".join(body.split())
    return flat if len(flat) <= MAX_LINE_BODY else flat[: MAX_LINE_BODY - 1] + "…"


def counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def memory_lines(memories: Iterable[Json]) -> str:
    return "\n".join(memory_line(memory) for memory in memories)


def render_saved(result: Json) -> str:
    if result.get("status") == "duplicate":
        return f"Already remembered as {result['id']} (same body, same scope): nothing new saved."
    return f"Saved memory {result['id']}.\n{memory_line(result['memory'])}"


def render_near_duplicates(message: str, similar: list[Json]) -> str:
    return (
        f"Not saved: {message}\nSimilar memories already exist:\n{memory_lines(similar)}\n"
        "If yours replaces them, call save_memory again with supersedes=[their ids]; "
        "if it is genuinely different, call it again with force=true; otherwise keep theirs."
    )


def render_recall(results: list[Json]) -> str:
    if not results:
        return (
            "No memory matched with enough confidence: nothing stored seems to answer this. "
            "Try other words, a wider scope, fewer filters, or a lower min_confidence."
        )
    return f"{counted(len(results), 'memory', 'memories')}, best first:\n{memory_lines(results)}"


def render_forgotten(result: Json) -> str:
    return f"Forgot memory {result['id']}: it no longer appears in recall, lists or bulletins."


def render_memory(memory: Json) -> str:
    details = ", ".join(
        f"{key}: {memory[key]}" for key in _DETAIL_KEYS if memory.get(key) is not None
    )
    return f"{memory_line(memory)}\n{details}\n\n{memory['body']}"


_DETAIL_KEYS = (
    "importance",
    "tags",
    "visibility",
    "source",
    "source_ref",
    "created_by",
    "created_at",
    "occurred_at",
    "updated_at",
    "expires_at",
    "revision",
    "access_count",
    "staleness",
    "confirmations",
    "promoted_at",
)


def render_list(page: Json) -> str:
    items = page.get("items", [])
    listed = f"{counted(len(items), 'memory', 'memories')}:\n{memory_lines(items)}"
    text = listed if items else "No memories here."
    if page.get("next_cursor"):
        text += f"\nMore: call list_memories again with cursor={page['next_cursor']!r}."
    return text


def render_link(result: Json) -> str:
    edge = result["edge"]
    verb = "Linked" if result.get("status") == "created" else "Already linked"
    return f"{verb}: {edge['src_id']} {edge['kind']} {edge['dst_id']}."


def render_bulletin(bulletin: Json) -> str:
    where = bulletin.get("scope_path") or bulletin.get("product_id") or bulletin.get("scope")
    return f"Bulletin for {where} (generated {bulletin.get('generated_at')}):\n\n{bulletin['text']}"


def render_context(pack: Json) -> str:
    return f"{pack['text']}\n\n({pack['tokens_used']} tokens, {len(pack.get('items', []))} items)"


def render_updated(result: Json) -> str:
    if result.get("status") == "unchanged":
        return f"Memory {result['id']} already says that: nothing changed."
    return f"Updated memory {result['id']}.\n{memory_line(result['memory'])}"


def render_flagged(result: Json) -> str:
    return (
        f"Flagged memory {result['id']} (flag {result.get('flag_id')}): its trust is now "
        f"{result['memory']['trust']:.2f}.\n{memory_line(result['memory'])}"
    )


def render_confirmed(result: Json) -> str:
    memory = result["memory"]
    return (
        f"Confirmed memory {result['id']} ({memory['confirmations']} confirmations, trust "
        f"{memory['trust']:.2f})."
    )


def render_consolidated(result: Json) -> str:
    sources = ", ".join(result.get("consolidated", []))
    return (
        f"Consolidated {sources} into memory {result['id']}; recall now serves it in their "
        f"place.\n{memory_line(result['memory'])}"
    )
