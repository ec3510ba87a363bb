"""The writes a vector lane takes while its HNSW build runs, for the built copy.

Each write holds its points' vectors and payloads as qdrant-edge objects, ~4 KB a point at
384 dimensions (measured): a build that takes minutes under a bulk load journals hundreds
of thousands of points (~300k, so ~1.2 GB, by a 316 s build near 1M). So the swap takes
them in rounds (`take`) and lets each write go once the copy has it (`replay_into`): the
journal's memory is handed over to the copy instead of held beside it.

Keeping only the ids written and copying their points from the shard at the swap was
measured and dropped: a copied point costs ~80 us of the GIL (~40 us of it the payload's
conversion into qdrant-edge) against ~25 us to replay a write, so under a bulk load the
copy fell behind the writes and one swap took 343 s (docs/benchmarks.md, "The swap's
journal"). For the same reason the journal keeps qdrant-edge's objects (4.0 KB a point)
rather than float32 bytes and a dict (2.3 KB): they would be converted at the replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import qdrant_edge as qe


class BuildJournal:
    def __init__(self) -> None:
        self._writes: deque[tuple[qe.UpdateOperation, int]] = deque()
        self._points = 0

    def note(self, write: qe.UpdateOperation, points: int) -> None:
        self._writes.append((write, points))
        self._points += points

    def __len__(self) -> int:
        """Points among the writes not yet taken."""
        return self._points

    def take(self) -> BuildJournal:
        """The writes noted so far, as a journal of their own; this one starts again empty."""
        taken = BuildJournal()
        taken._writes, taken._points = self._writes, self._points
        self._writes, self._points = deque(), 0
        return taken

    def replay_into(self, apply: Callable[[qe.UpdateOperation], None]) -> int:
        """Applies the writes in order, dropping each once applied; returns their points."""
        replayed = 0
        while self._writes:
            write, points = self._writes.popleft()
            self._points -= points
            apply(write)
            replayed += points
        return replayed
