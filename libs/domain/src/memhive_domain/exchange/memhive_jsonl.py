"""memhive's export as JSON Lines: a header line, then one line per memory, edge and revision.

    {"memhive_export": 1, "workspace_id": "...", "exported_at": "...", "scope_path": null}
    {"type": "memory", "memory": {...every field of the record...}}
    {"type": "edge", "edge": {"src_id": ..., "dst_id": ..., "kind": "updates", ...}}
    {"type": "revision", "change": "saved", "memory": {...the memory at that revision...}}

Lines are independent, so an export streams and a reader needs no more than one line in hand;
revisions come after the memories (one scan of the log gives them all).

Ids: the lanes know a memory by its id across workspaces, so ids are kept only when the
export is imported into the workspace it came from (a restore after a wipe, or on another
installation). Imported into another workspace, each memory takes an id derived from its
workspace and its old id (UUIDv5: the same on every import, so a second one still finds it),
and edges and revisions follow it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from memhive_domain.edges import Edge
from memhive_domain.errors import InvalidInput
from memhive_domain.exchange.items import ImportEdge, ImportFile, ImportItem, LineProblems
from memhive_domain.exchange.records import (
    edge_from_record,
    edge_record,
    iso,
    memory_from_record,
    memory_record,
)
from memhive_domain.memory import Memory, MemoryDraft
from memhive_domain.revisions import Revision

FORMAT_VERSION = 1
HEADER_KEY = "memhive_export"
MAX_LINE_CHARS = 64 * 1024  # a memory with every field at its bound fits several times


def header_line(workspace_id: str, exported_at: datetime, scope_path: str | None) -> dict:
    return {
        HEADER_KEY: FORMAT_VERSION,
        "workspace_id": workspace_id,
        "exported_at": iso(exported_at),
        "scope_path": scope_path,
    }


def memory_line(memory: Memory) -> dict[str, Any]:
    return {"type": "memory", "memory": memory_record(memory)}


def edge_line(edge: Edge) -> dict[str, Any]:
    return {"type": "edge", "edge": edge_record(edge)}


def revision_line(revision: Revision) -> dict[str, Any]:
    return {"type": "revision", "change": revision.change, "memory": memory_record(revision.memory)}


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"


def parse_export(text: str, workspace_id: str, now: datetime) -> ImportFile:
    """Every line checked before anything is returned: a bad line raises BadImportFile naming
    it (and every other bad line), so nothing of a bad file is imported."""
    problems = LineProblems("memhive export")
    memories: dict[str, tuple[int, Memory]] = {}
    edges: list[ImportEdge] = []
    history: dict[str, list[Memory]] = {}
    source = None
    for number, raw in _numbered(text):
        data = _json_line(raw, number, problems)
        if data is None:
            continue
        if source is None:
            source = _header(data, number, problems)
            continue
        _line(data, number, workspace_id, now, (memories, edges, history), problems)
    if source is None:
        problems.add(1, f"not a memhive export: the first line must hold {HEADER_KEY!r}")
    problems.raise_if_any()
    items = [_item(line, memory, history.get(memory.id, [])) for line, memory in memories.values()]
    parsed = ImportFile(tuple(items), tuple(edges))
    return parsed if source == workspace_id else moved(parsed, workspace_id)


def moved_id(workspace_id: str, memory_id: str) -> str:
    """The id a memory exported from another workspace takes in `workspace_id`."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memhive:{workspace_id}:{memory_id}"))


def moved(parsed: ImportFile, workspace_id: str) -> ImportFile:
    """The same file with every id (memories, their history, both ends of edges) moved."""

    def new(memory: Memory) -> Memory:
        return replace(memory, id=moved_id(workspace_id, memory.id))

    def ends(edge: Edge) -> Edge:
        src, dst = (moved_id(workspace_id, i) for i in (edge.src_id, edge.dst_id))
        return replace(edge, src_id=src, dst_id=dst)

    items = [
        replace(i, restored=new(i.restored), history=tuple(new(m) for m in i.history))
        for i in parsed.items
        if i.restored is not None
    ]
    edges = [replace(e, edge=ends(e.edge)) for e in parsed.edges]
    return ImportFile(tuple(items), tuple(edges), parsed.notes)


def _numbered(text: str) -> Iterable[tuple[int, str]]:
    for index, raw in enumerate(text.splitlines()):
        if raw.strip():
            yield index + 1, raw


def _json_line(raw: str, number: int, problems: LineProblems) -> dict | None:
    if len(raw) > MAX_LINE_CHARS:
        problems.add(number, f"longer than {MAX_LINE_CHARS} characters")
        return None
    try:
        data = json.loads(raw)
    except ValueError as bad:
        problems.add(number, f"not JSON ({bad})")
        return None
    if not isinstance(data, dict):
        problems.add(number, "must be a JSON object")
        return None
    return data


def _header(data: dict, number: int, problems: LineProblems) -> str:
    """The workspace the export came from ("" when the header is bad: reported)."""
    version = data.get(HEADER_KEY)
    if version is None:
        problems.add(number, f"not a memhive export: the first line must hold {HEADER_KEY!r}")
    elif version != FORMAT_VERSION:
        problems.add(number, f"export format {version!r}; this memhive reads {FORMAT_VERSION}")
    workspace = data.get("workspace_id")
    return workspace if isinstance(workspace, str) else ""


def _line(data, number, workspace_id, now, into, problems: LineProblems) -> None:
    memories, edges, history = into
    kind = data.get("type")
    try:
        if kind == "memory":
            memory = memory_from_record(data.get("memory"), workspace_id, now)
            if memory.id in memories:
                problems.add(number, f"memory {memory.id} is also on line {memories[memory.id][0]}")
            memories[memory.id] = (number, memory)
        elif kind == "edge":
            edges.append(ImportEdge(number, edge_from_record(data.get("edge"))))
        elif kind == "revision":
            earlier = memory_from_record(data.get("memory"), workspace_id, None)
            history.setdefault(earlier.id, []).append(earlier)
        else:
            problems.add(number, f"unknown line type {kind!r}; expected memory, edge or revision")
    except InvalidInput as invalid:
        problems.add(number, invalid.problems)


def _item(line: int, memory: Memory, revisions: list[Memory]) -> ImportItem:
    earlier = {r.revision: r for r in revisions if r.revision < memory.revision}
    return ImportItem(
        line=line,
        draft=MemoryDraft(kind=memory.kind, body=memory.body, scope_path=memory.scope_ref.key),
        restored=memory,
        history=tuple(earlier[n] for n in sorted(earlier)),
    )
