"""The writes a vector lane takes while its HNSW build runs, for the built copy.

Each write holds its points' vectors and payloads as qdrant-edge objects, ~4 KB a point at
384 dimensions (measured): a build that takes minutes under a bulk load journals hundreds
of thousands of points (~300k, so ~1.2 GB, by a 316 s build near 1M). So the swap takes
them in rounds (`take`) and lets each write go once the copy has it (`replay_into`): the
journal's memory is handed over to the copy instead of held beside it.

Past `spill_after` points, the journal holds no more in memory: each further write goes to
a file (`spill`) in its plain form (ids, float32 bytes, the payload as a dict: `PlainWrite`),
made into a qdrant-edge write again when it is replayed. That costs ~40 us of the GIL a
point at the replay (the payload's conversion), so only a build long enough to journal more
than `spill_after` points pays it, and the largest journals (a 1M bulk load) no longer sit in
memory beside the old shard and the new one at the swap (docs/benchmarks.md, "The swap's
journal on disk").

Keeping only the ids written and copying their points from the shard at the swap was
measured and dropped: a copied point costs ~80 us of the GIL (~40 us of it the payload's
conversion into qdrant-edge) against ~25 us to replay a write, so under a bulk load the
copy fell behind the writes and one swap took 343 s (docs/benchmarks.md, "The swap's
journal").
"""

from __future__ import annotations

import contextlib
import itertools
import pickle
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import qdrant_edge as qe

SPILL_AFTER = 50_000  # points in memory (~200 MB); a build of a 100k load journals fewer

# A write in plain Python values, as the lane made it: ("upsert", [(id, float32 bytes,
# payload)]), ("delete", [id]) or ("delete_in", workspace_id, [id]).
PlainWrite = tuple[Any, ...]
Rebuild = Callable[[PlainWrite], qe.UpdateOperation]


class BuildJournal:
    """`spill`: where the writes past `spill_after` points go (files `<spill>.<n>`, one per
    round); None: every write stays in memory. `rebuild` makes a spilled write a qdrant-edge
    write again."""

    def __init__(
        self,
        spill: Path | None = None,
        rebuild: Rebuild | None = None,
        spill_after: int = SPILL_AFTER,
    ) -> None:
        self._writes: deque[tuple[qe.UpdateOperation, int]] = deque()
        self._points = 0  # held and spilled
        self._spill, self._rebuild, self._spill_after = spill, rebuild, spill_after
        self._rounds = itertools.count()  # each round's file: <spill>.<n>
        self._file: Path | None = None
        self._out: BinaryIO | None = None
        self._spilled = 0  # points in the file

    def note(
        self,
        write: qe.UpdateOperation,
        points: int,
        plain: Callable[[], PlainWrite] | None = None,
    ) -> None:
        """`plain`: the write in plain values, asked for only when it is spilled. Once a
        write is spilled, every later one is too, so the replay keeps their order."""
        held = self._points - self._spilled
        spilling = self._out is not None or (
            self._spill is not None and plain is not None and held + points > self._spill_after
        )
        if spilling and plain is None:
            raise ValueError("a write after a spilled one needs its plain form")
        self._points += points
        if not spilling:
            self._writes.append((write, points))
            return
        if self._out is None:
            self._file = Path(f"{self._spill}.{next(self._rounds)}")
            self._out = open(self._file, "wb")  # noqa: SIM115 (closed by take or discard)
        pickle.dump((plain(), points), self._out, protocol=pickle.HIGHEST_PROTOCOL)
        self._spilled += points

    def __len__(self) -> int:
        """Points among the writes not yet taken."""
        return self._points

    def take(self) -> BuildJournal:
        """The writes noted so far, as a journal of their own to replay (it notes nothing
        more); this one starts again empty."""
        taken = BuildJournal(rebuild=self._rebuild)
        taken._writes, taken._points = self._writes, self._points
        taken._file, taken._spilled = self._file, self._spilled
        if self._out is not None:
            self._out.close()
        self._writes, self._points, self._file, self._out, self._spilled = deque(), 0, None, None, 0
        return taken

    def replay_into(self, apply: Callable[[qe.UpdateOperation], None]) -> int:
        """Applies the writes in order, dropping each once applied; returns their points."""
        replayed = 0
        while self._writes:
            write, points = self._writes.popleft()
            self._points -= points
            apply(write)
            replayed += points
        if self._file is not None:
            assert self._rebuild is not None and self._out is None, "taken before replayed"
            with open(self._file, "rb") as spilled:
                for plain, points in _records(spilled):
                    apply(self._rebuild(plain))
                    self._points -= points
                    replayed += points
            self.discard()
        return replayed

    def discard(self) -> None:
        """Removes what was spilled (a build abandoned, or its journal replayed)."""
        if self._out is not None:
            self._out.close()
            self._out = None
        if self._file is not None:
            self._file.unlink(missing_ok=True)
            self._file, self._spilled = None, 0


def _records(spilled: BinaryIO):
    with contextlib.suppress(EOFError):
        while True:
            yield pickle.load(spilled)  # noqa: S301 (this process wrote it, in its lane dir)
