"""The lanes a process serves from, swappable while recall and indexing continue.

Services hold the Swappable* views and never a generation itself: each call picks the
current generation when it starts and finishes on it, so a swap never cuts a recall in
half. While a new generation is being built every write is mirrored into it, and the
rebuild never overwrites a mirrored write with an older revision of the same memory.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager

from memhive_domain.memory import Memory
from memhive_ports import DocumentTerms

from memhive_adapters.runtime.encoder_match import items_in_encoder
from memhive_adapters.runtime.lane_generations import LaneGeneration

_FORGOTTEN = sys.maxsize  # a deleted id: no revision of it may come back into the build


class LaneSet:
    def __init__(self, current: LaneGeneration) -> None:
        self._current = current
        self._building: LaneGeneration | None = None
        self._mirrored: dict[str, int] = {}
        self._build_lock = asyncio.Lock()
        self._in_flight: Counter[int] = Counter()
        self._idle = asyncio.Condition()

    @property
    def current(self) -> LaneGeneration:
        return self._current

    @property
    def building(self) -> LaneGeneration | None:
        return self._building

    @asynccontextmanager
    async def using(self) -> AsyncIterator[tuple[LaneGeneration, LaneGeneration | None]]:
        """The current generation (and the one being built) for the length of one call."""
        generation, building = self._current, self._building
        self._in_flight[generation.spec.number] += 1
        try:
            yield generation, building
        finally:
            self._in_flight[generation.spec.number] -= 1
            async with self._idle:
                self._idle.notify_all()

    def begin_build(self, generation: LaneGeneration) -> None:
        if self._building is not None:
            raise RuntimeError("a lane generation is already being built")
        self._building, self._mirrored = generation, {}

    def abandon_build(self) -> LaneGeneration | None:
        building, self._building, self._mirrored = self._building, None, {}
        return building

    async def swap(self) -> LaneGeneration:
        """Make the built generation current; returns the old one once no call uses it."""
        if self._building is None:
            raise RuntimeError("no lane generation is being built")
        built, self._building, self._mirrored = self._building, None, {}
        return await self.adopt(built)

    async def adopt(self, generation: LaneGeneration) -> LaneGeneration:
        """Serve from `generation` (opened; built by another process, which announced it);
        returns the old one once no call uses it."""
        old, self._current = self._current, generation
        async with self._idle:
            await self._idle.wait_for(lambda: self._in_flight[old.spec.number] == 0)
        return old

    async def write_rebuilt(
        self,
        items: Sequence[tuple[Memory, Sequence[float]]],
        building: LaneGeneration,
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> int:
        """Write replayed memories into the build unless a newer write got there first."""
        async with self._build_lock:
            fresh = [(m, v) for m, v in items if self._mirrored.get(m.id, -1) < m.revision]
            if fresh:
                await building.vector.upsert(fresh, terms)
                await building.lexical.upsert([m for m, _ in fresh])
            return len(fresh)

    async def mirror_vectors(
        self,
        building: LaneGeneration,
        items: Sequence[tuple[Memory, Sequence[float]]],
        assumed: str,
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> None:
        """`assumed`: the encoder of vectors that name none (the caller's generation's);
        a vector of another encoder than the build's is embedded again with the build's.
        Document terms do not depend on the encoder: they go as they are."""
        async with self._build_lock:
            items = await items_in_encoder(building.embedder, items, assumed)
            await building.vector.upsert(items, terms)
            self._remember([m for m, _ in items])

    async def mirror_lexical(self, building: LaneGeneration, memories: Sequence[Memory]) -> None:
        async with self._build_lock:
            await building.lexical.upsert(memories)
            self._remember(memories)

    async def mirror_delete(
        self, building: LaneGeneration, lane: str, workspace_id: str, ids: Sequence[str]
    ) -> None:
        async with self._build_lock:
            await getattr(building, lane).delete(workspace_id, ids)
            for memory_id in ids:
                self._mirrored[memory_id] = _FORGOTTEN

    def _remember(self, memories: Sequence[Memory]) -> None:
        for m in memories:
            self._mirrored[m.id] = max(self._mirrored.get(m.id, -1), m.revision)

    async def close(self) -> None:
        building = self.abandon_build()
        if building is not None:
            await building.close()
        await self._current.close()
