"""Which lane generation serves recall: a number, the embedding model of its vectors, and
the layout of what its lanes store (the version of their fields: a generation of an older
layout than the code's must be rebuilt before the code can use it).

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
    layout: int = 1  # generations recorded before layouts were are the first

    def fields(self) -> dict[str, object]:
        """As the pointer file and the pointer on the bus keep it (JSON)."""
        return {
            "generation": self.number,
            "embedding_model": self.embedding_model,
            "layout": self.layout,
        }

    @classmethod
    def from_fields(cls, data: dict) -> GenerationSpec:
        """Raises KeyError, ValueError or TypeError for anything else."""
        return cls(
            int(data["generation"]), str(data["embedding_model"]), int(data.get("layout", 1))
        )


def newest(*specs: GenerationSpec | None) -> GenerationSpec | None:
    known = [s for s in specs if s is not None]
    return max(known, key=lambda s: s.number) if known else None


def supersedes(candidate: GenerationSpec, current: GenerationSpec) -> bool:
    """Whether a process serving `current` should move to `candidate`."""
    return candidate.number > current.number
