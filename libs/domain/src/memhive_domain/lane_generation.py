"""Which lane generation serves recall: a number and the embedding model of its vectors.

Generation numbers only grow (a reindex builds current + 1), so where several records of
the current generation may disagree (the shared pointer on the bus, a process's own file
after a crash between the two writes) the highest number is the one to serve.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GenerationSpec:
    number: int
    embedding_model: str


def newest(*specs: GenerationSpec | None) -> GenerationSpec | None:
    known = [s for s in specs if s is not None]
    return max(known, key=lambda s: s.number) if known else None


def supersedes(candidate: GenerationSpec, current: GenerationSpec) -> bool:
    """Whether a process serving `current` should move to `candidate`."""
    return candidate.number > current.number
