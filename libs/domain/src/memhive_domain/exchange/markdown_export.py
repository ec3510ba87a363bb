"""The Markdown export: one file per node of the scope tree, for a person to read. Pinned
memories first, then by kind, newest first; each memory a bullet with a line of where it
came from. Not meant to be imported back (the JSONL export is)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from memhive_domain.edges import Edge, EdgeKind
from memhive_domain.exchange.records import iso
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory

_KIND_TITLES = {
    MemoryKind.DECISION: "Decisions",
    MemoryKind.PREFERENCE: "Preferences",
    MemoryKind.PROCEDURE: "Procedures",
    MemoryKind.FACT: "Facts",
    MemoryKind.IDENTITY: "Identity",
    MemoryKind.GOAL: "Goals",
    MemoryKind.TODO: "To do",
    MemoryKind.EVENT: "Events",
    MemoryKind.OBSERVATION: "Observations",
}


def file_name(scope_path: str) -> str:
    """`product:ios/team:mobile` -> `product-ios__team-mobile.md`: safe on every file system."""
    name = re.sub(r"[^A-Za-z0-9._@-]+", "-", scope_path.replace("/", "__").replace(":", "-"))
    return f"{name}.md"


def render_scope_files(
    memories: Iterable[Memory], edges: Iterable[Edge], workspace_id: str, exported_at: datetime
) -> dict[str, str]:
    by_node: dict[str, list[Memory]] = defaultdict(list)
    for memory in memories:
        by_node[memory.scope_ref.key].append(memory)
    successor = {e.dst_id: e.src_id for e in edges if e.kind is EdgeKind.UPDATES}
    return {
        file_name(node): _render(node, items, successor, workspace_id, exported_at)
        for node, items in sorted(by_node.items())
    }


def _render(node, memories, successor, workspace_id, exported_at) -> str:
    lines = [
        f"# Memories at `{node}`",
        "",
        f"Workspace `{workspace_id}`, exported {iso(exported_at)}: {len(memories)} "
        f"memor{'y' if len(memories) == 1 else 'ies'}.",
    ]
    pinned = [m for m in memories if m.pinned]
    if pinned:
        lines += ["", "## Pinned", ""] + [_bullet(m, successor) for m in _newest(pinned)]
    for kind, title in _KIND_TITLES.items():
        chosen = [m for m in memories if m.kind is kind and not m.pinned]
        if chosen:
            lines += ["", f"## {title}", ""] + [_bullet(m, successor) for m in _newest(chosen)]
    return "\n".join(lines) + "\n"


def _newest(memories: list[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)


def _bullet(memory: Memory, successor: dict[str, str]) -> str:
    body = memory.body.replace("\n", "\n  ")
    facts = [
        f"`{memory.id}`",
        f"{memory.kind.value}",
        f"saved {iso(memory.created_at)[:10]} by {memory.created_by}",
    ]
    if memory.tags:
        facts.append("tags " + ", ".join(memory.tags))
    if memory.source_ref:
        facts.append(f"from {memory.source_ref}")
    if memory.id in successor:
        facts.append(f"**superseded by** `{successor[memory.id]}`")
    return f"- {body}\n  <sub>{' · '.join(facts)}</sub>"
