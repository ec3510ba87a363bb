"""What a parsed import file holds, before anything is written: memories to save (drafts),
memories to restore as they were (memhive's export), edges, and key/value entries kept beside
them (mem0's metadata). Every item knows the line it came from, for the report and errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memhive_domain.edges import Edge
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory, MemoryDraft

# A file with more problems than this is reported by its first ones: enough to act on.
MAX_REPORTED_PROBLEMS = 50


@dataclass(frozen=True, slots=True)
class KeptEntry:
    """A key/value entry written at the memory's node beside it (mem0's metadata)."""

    key: str
    value: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ImportItem:
    line: int
    draft: MemoryDraft
    restored: Memory | None = None  # memhive's export: the record as it was, id included
    history: tuple[Memory, ...] = ()  # its earlier revisions, oldest first (restores only)
    kept: KeptEntry | None = None


@dataclass(frozen=True, slots=True)
class ImportEdge:
    line: int
    edge: Edge


@dataclass(frozen=True, slots=True)
class ImportFile:
    items: tuple[ImportItem, ...]
    edges: tuple[ImportEdge, ...] = ()
    notes: tuple[str, ...] = field(default=())  # what the parser left out on purpose, and why


class LineProblems:
    """Problems found in a file, each named by its line; raised all at once."""

    def __init__(self, source: str) -> None:
        self._source, self.problems = source, []

    def add(self, line: int, found: Sequence[FieldProblem] | str) -> None:
        if isinstance(found, str):
            found = [FieldProblem("", found)]
        for problem in found:
            what = f"{problem.field}: " if problem.field else ""
            self.problems.append(FieldProblem(f"line {line}", f"{what}{problem.message}"))

    def raise_if_any(self) -> None:
        if self.problems:
            raise BadImportFile(self._source, self.problems[:MAX_REPORTED_PROBLEMS])


class BadImportFile(InvalidInput):
    """The file cannot be imported as it is: nothing of it is written (HTTP 422)."""

    def __init__(self, source: str, problems: list[FieldProblem]) -> None:
        super().__init__(problems)
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        self.summary = f"{source}: {first.field}: {first.message}{more}; nothing was imported"
