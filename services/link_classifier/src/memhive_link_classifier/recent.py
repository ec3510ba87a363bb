"""What this classifier indexed lately: a save the gateway checked is not searched again.

A save that waited for `indexed` was searched in its scope just before it was sent, and had
no neighbour as similar as `near_duplicate_check` but those it names (`near_duplicates`: a
save with force or supersedes; without, the gateway refuses them with a 409). What that
search could not see is what was indexed after it, such as a near-duplicate saved at the
same moment and checked before this one was indexed. Each such memory went through this
classifier after the check (MemoryIndexed follows the lane write), so comparing the vector
with those seen since finds it: one matrix product instead of a search. The lane is
searched as before when this process cannot vouch for the whole span (it started after the
check, or has since overwritten what it saw then: KEPT memories).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock

# Memories remembered (a ring): a bound on memory and on the work per save. At 300 saves/s,
# 13 s between a save's check and its MemoryIndexed reaching the classifier.
KEPT = 4096
# The gateway's clock may run ahead of this process's (distributed mode): widen the span.
CLOCK_SKEW = timedelta(seconds=1)

Node = tuple[str, ScopeRef, str]  # workspace, scope, encoder: only these vectors compare


class RecentlyIndexed:
    """A ring of unit vectors, each with when it was seen and the code of its node."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._complete_since = clock.now().timestamp()  # everything seen since is held
        self._vectors: np.ndarray | None = None  # KEPT x dimensions, once the first comes
        self._seen_at = np.full(KEPT, -np.inf)  # POSIX seconds
        self._nodes = np.full(KEPT, -1, dtype=np.int64)
        self._ids: list[str] = [""] * KEPT
        self._codes: dict[Node, int] = {}
        self._next = 0

    def add(self, node: Node, memory_id: str, unit: np.ndarray) -> None:
        """unit: `unit_vector` of its vector (computed once for `since` and `add`)."""
        if self._vectors is None:
            self._vectors = np.zeros((KEPT, unit.shape[0]), dtype=np.float32)
        elif self._vectors.shape[1] != unit.shape[0] or (
            node not in self._codes and len(self._codes) >= KEPT  # a bound on the codes too
        ):
            self._restart(unit.shape[0])
        slot = self._next % KEPT
        if self._next >= KEPT:  # overwritten: no longer complete before its time
            self._complete_since = max(self._complete_since, float(self._seen_at[slot]))
        self._vectors[slot] = unit
        self._seen_at[slot] = self._clock.now().timestamp()
        self._nodes[slot] = self._codes.setdefault(node, len(self._codes))
        self._ids[slot] = memory_id
        self._next += 1

    def since(
        self, checked_at: datetime, node: Node, unit: np.ndarray, at_least: float = -np.inf
    ) -> dict[str, float] | None:
        """Cosine by id of the memories of the node seen since a check at `checked_at`, of
        those at least `at_least` similar; None when some of them may be missing
        (overwritten, or before this process). Under a burst into one scope the span holds
        hundreds, few of them near: gathering them all cost ~90 us a save, ~55 with the floor
        applied first (docs/benchmarks.md, "Two levers of the design")."""
        start = (checked_at - CLOCK_SKEW).timestamp()
        if start < self._complete_since:
            return None
        code = self._codes.get(node)
        if code is None or self._vectors is None:
            return {}
        rows = np.flatnonzero((self._seen_at >= start) & (self._nodes == code))
        if rows.size == 0:
            return {}
        cosines = (self._vectors[rows] @ unit).astype(np.float64)  # compared as Python would
        near = cosines >= at_least
        pairs = zip(rows[near].tolist(), cosines[near].tolist(), strict=True)
        return {self._ids[r]: c for r, c in pairs}

    def _restart(self, dimensions: int) -> None:
        """Another encoder's width (what was held cannot be compared with what comes), or
        more nodes than memories kept: start again from now."""
        self._vectors = np.zeros((KEPT, dimensions), dtype=np.float32)
        self._seen_at[:] = -np.inf
        self._nodes[:] = -1
        self._codes.clear()
        self._complete_since = self._clock.now().timestamp()


def unit_vector(vector: Sequence[float]) -> np.ndarray:
    unit = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(unit))
    return unit / norm if norm else unit
