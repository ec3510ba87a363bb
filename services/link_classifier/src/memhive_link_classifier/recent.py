"""What this classifier indexed lately: a save the gateway checked is not searched again.

A save that waited for `indexed` without force was searched in its scope just before it was
sent, and had no neighbour as similar as `near_duplicate_check` (the gateway refuses those
with a 409). What that search could not see is what was indexed after it, such as a
near-duplicate saved at the same moment and checked before this one was indexed. Each such
memory went through this classifier after the check (MemoryIndexed follows the lane write),
so comparing the vector with those seen since finds it: a few dot products instead of a
search. The lane is searched as before when this process cannot vouch for the whole span
(it started after the check, or has dropped what it saw then: a backlog longer than KEPT_FOR).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock

# How long a memory is remembered: the longest wait between a save's check and its
# MemoryIndexed reaching the classifier that still skips the search (longer: a search).
KEPT_FOR = timedelta(seconds=60)
KEPT_AT_MOST = 4096  # memories: a bound on memory and on the comparisons per save
# The gateway's clock may run ahead of this process's (distributed mode): widen the span.
CLOCK_SKEW = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class Seen:
    at: datetime  # when this classifier saw it: after it was in the lane
    workspace_id: str
    scope: ScopeRef
    encoder: str
    memory_id: str
    unit: np.ndarray  # the vector at unit length


class RecentlyIndexed:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._seen: deque[Seen] = deque()
        self._complete_since = clock.now()  # everything seen since is still here

    def add(self, workspace_id: str, scope: ScopeRef, encoder: str, memory_id: str, vector) -> None:
        now = self._clock.now()
        self._seen.append(Seen(now, workspace_id, scope, encoder, memory_id, _unit(vector)))
        while self._seen and (len(self._seen) > KEPT_AT_MOST or self._seen[0].at < now - KEPT_FOR):
            self._complete_since = max(self._complete_since, self._seen.popleft().at)

    def since(
        self, checked_at: datetime, workspace_id: str, scope: ScopeRef, encoder: str, vector
    ) -> dict[str, float] | None:
        """Cosine by id of the memories of the scope seen since a check at `checked_at`;
        None when some of them may have been dropped (or came before this process)."""
        start = checked_at - CLOCK_SKEW
        if start < self._complete_since:
            return None
        node = (workspace_id, scope, encoder)
        same: list[Seen] = []
        for seen in reversed(self._seen):
            if seen.at < start:
                break
            if (seen.workspace_id, seen.scope, seen.encoder) == node:
                same.append(seen)
        if not same:
            return {}
        cosines = np.stack([s.unit for s in same]) @ _unit(vector)
        return {s.memory_id: c for s, c in zip(same, cosines.tolist(), strict=True)}


def _unit(vector: Sequence[float]) -> np.ndarray:
    unit = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(unit))
    return unit / norm if norm else unit
