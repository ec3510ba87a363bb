"""Which parser reads an import, by the format asked for or guessed from the file's name."""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from pathlib import PurePosixPath

from memhive_domain.exchange.claude_memory import parse_claude_memory
from memhive_domain.exchange.items import ImportFile
from memhive_domain.exchange.markdown_files import parse_memory_file
from memhive_domain.exchange.mem0_json import parse_get_all
from memhive_domain.exchange.memhive_jsonl import parse_export
from memhive_domain.scopes import ScopeRef


class ImportFormat(StrEnum):
    MEMHIVE = "memhive"  # memhive's JSONL export: restored as it was, ids included
    MEM0 = "mem0"  # the JSON of mem0's get_all
    MARKDOWN = "markdown"  # CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc, copilot instructions
    CLAUDE_MEMORY = "claude-memory"  # Claude Code's auto memory: a file per memory


def format_of(path: str) -> ImportFormat:
    if re.search(r"(^|/)\.claude/projects/[^/]+/memory/[^/]+\.md$", path):
        return ImportFormat.CLAUDE_MEMORY
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return ImportFormat.MEMHIVE
    if suffix == ".json":
        return ImportFormat.MEM0
    return ImportFormat.MARKDOWN


def parse_import(
    form: ImportFormat,
    text: str,
    *,
    path: str,
    base: ScopeRef,
    workspace_id: str,
    now: datetime,
) -> ImportFile:
    """Raises BadImportFile (naming lines) when the file cannot be read as `form`."""
    if form is ImportFormat.MEMHIVE:
        return parse_export(text, workspace_id, now)
    if form is ImportFormat.MEM0:
        return parse_get_all(text, base, now)
    if form is ImportFormat.CLAUDE_MEMORY:
        return parse_claude_memory(path, text, base)
    return parse_memory_file(path, text, base)
