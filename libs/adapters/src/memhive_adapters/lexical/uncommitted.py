"""What the tantivy lane was given but has not committed yet, searchable at once.

A tantivy commit costs about 11 ms of CPU whatever it holds (docs/benchmarks.md), so the
lane commits in groups (`group_commit.py`) and keeps each write here until the searcher
sees the commit that holds it. Reads merge these with the index's answers: a pending copy
or a pending delete of a memory hides the committed one, the filter is the same conditions
(`lane_conditions.holds`), and bodies are scored with tantivy's BM25 formula over the same
analyzer's terms and the index's statistics, so one ranking holds both.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from memhive_domain.memory import Memory

from memhive_adapters.lane_conditions import Condition, holds, stored_fields

# tantivy's BM25 parameters (its Bm25Weight).
K1, B = 1.2, 0.75


@dataclass(frozen=True, slots=True)
class PendingBody:
    """A memory as the lane will index it: its filter fields and its body's terms."""

    memory: Memory
    fields: dict[str, object]
    terms: Counter[str]

    @classmethod
    def of(cls, memory: Memory, terms: Sequence[str]) -> PendingBody:
        return cls(memory, stored_fields(memory), Counter(terms))

    @property
    def length(self) -> int:
        return sum(self.terms.values())


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """BM25's statistics of the committed index: documents as tantivy counts them (deleted
    ones too, until a merge), their average body length, and each term's document count."""

    docs: int
    average_length: float | None  # None: not known yet, the pending bodies' own is used
    doc_freq: Callable[[str], int]


class Uncommitted:
    """Pending writes by memory id: the body to index, or None for a removal. Each write
    has a sequence number; `settle(n)` forgets those the searcher now holds."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, str, PendingBody | None]] = {}
        self._sequence = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def sequence(self) -> int:
        """The last write's number."""
        return self._sequence

    def put(self, bodies: Iterable[PendingBody]) -> int:
        for body in bodies:
            live = None if body.memory.forgotten else body
            self._write(body.memory.id, body.memory.workspace_id, live)
        return self._sequence

    def remove(self, workspace_id: str, memory_ids: Iterable[str]) -> int:
        for memory_id in memory_ids:
            held = self._entries.get(memory_id)
            if held is None or held[1] == workspace_id:  # a delete names one workspace
                self._write(memory_id, workspace_id, None)
        return self._sequence

    def settle(self, committed: int) -> None:
        """Writes up to `committed` are in the searcher now: only later ones stay."""
        self._entries = {k: v for k, v in self._entries.items() if v[0] > committed}

    def masked(self) -> list[str]:
        """Ids whose committed document, if any, is stale or removed."""
        return list(self._entries)

    def present(self, workspace_id: str, memory_ids: Iterable[str]) -> tuple[set[str], set[str]]:
        """(held here, removed here) among these ids, for this workspace."""
        held, removed = set(), set()
        for memory_id in memory_ids:
            entry = self._entries.get(memory_id)
            if entry is not None and entry[1] == workspace_id:
                (removed if entry[2] is None else held).add(memory_id)
        return held, removed

    def snapshot(self) -> Pending:
        """What a read running in another thread merges with the index: a copy."""
        return Pending(self._bodies(), self.masked())

    def _bodies(self) -> list[PendingBody]:
        return [body for _, _, body in self._entries.values() if body is not None]

    def _write(self, memory_id: str, workspace_id: str, body: PendingBody | None) -> None:
        self._sequence += 1
        self._entries.pop(memory_id, None)  # re-inserted last: the newest write
        self._entries[memory_id] = (self._sequence, workspace_id, body)


@dataclass(frozen=True, slots=True)
class Pending:
    """The pending bodies and the ids they hide in the index, as of one moment."""

    bodies: list[PendingBody]
    masked: list[str]

    def matching(self, conditions: Sequence[Condition]) -> list[PendingBody]:
        return [b for b in self.bodies if all(holds(c, b.fields) for c in conditions)]

    def scored(
        self, terms: Sequence[str], conditions: Sequence[Condition], stats: CorpusStats
    ) -> list[tuple[float, str]]:
        """(BM25 score, id) of each pending body holding a term and meeting the filter, as
        tantivy would score it once committed: the pending bodies count in the statistics."""
        wanted = set(terms)
        with_terms = [b for b in self.bodies if not wanted.isdisjoint(b.terms)]
        if not with_terms:
            return []
        docs = stats.docs + len(self.bodies)
        pending_length = sum(b.length for b in self.bodies)
        if stats.average_length is None:
            average = pending_length / len(self.bodies)
        else:
            average = (stats.average_length * stats.docs + pending_length) / docs
        idf = {
            t: _idf(docs, stats.doc_freq(t) + sum(t in b.terms for b in self.bodies))
            for t in wanted
        }
        return [
            (_bm25(body, idf, average), body.memory.id)
            for body in with_terms
            if all(holds(c, body.fields) for c in conditions)
        ]


def _idf(docs: int, with_term: int) -> float:
    return math.log(1 + (docs - with_term + 0.5) / (with_term + 0.5))


def _bm25(body: PendingBody, idf: dict[str, float], average_length: float) -> float:
    norm = K1 * (1 - B + B * body.length / average_length) if average_length else K1
    return sum(
        weight * (K1 + 1) * body.terms[t] / (body.terms[t] + norm)
        for t, weight in idf.items()
        if t in body.terms
    )
