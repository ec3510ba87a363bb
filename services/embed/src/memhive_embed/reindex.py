"""Use case: rebuild the lanes from the record while recall keeps being served.

A full rebuild fills a new lane generation (optionally with another embedding model)
from every memory's current record, mirrors the writes that arrive meanwhile, and only
then moves the generation pointer and swaps: until that moment the old generation
serves, and a failure or a kill leaves it serving (the half-built one is dropped).
A repair rewrites some workspaces' memories in place in the current generation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from memhive_adapters.runtime.lane_generations import LaneGeneration, LaneGenerations
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_adapters.runtime.lane_upgrade import embed_in_chunks
from memhive_domain.lane_generation import GenerationSpec
from memhive_domain.memory import Memory
from memhive_ports import TermWeights

from memhive_embed.document_terms import terms_of

log = logging.getLogger(__name__)

# After the pointer moves, how long the other replicas get to swap before the catch-up.
SETTLE_S = 2.0


@dataclass(frozen=True, slots=True)
class Progress:
    state: str  # running | swapped | done
    done: int
    total: int
    generation: int
    embedding_model: str


Report = Callable[[Progress], Awaitable[None]]


class Batch(Protocol):
    memories: list[Memory]
    read: int
    total: int
    sequence: int


class Replay(Protocol):
    """Every memory's current record (forgotten ones too), in batches; or, after a stream
    sequence, every record written since."""

    def batches(
        self, workspace_ids: Sequence[str] = (), after_sequence: int | None = None
    ) -> AsyncIterator[Batch]: ...


class SharedPointer(Protocol):
    """The generation every process follows (nats/kv_generation_pointer.py)."""

    async def advance(self, spec: GenerationSpec) -> bool: ...


class Reindexer:
    def __init__(
        self,
        replay: Replay,
        lanes: LaneSet,
        generations: LaneGenerations,
        pointer: SharedPointer | None = None,
        *,
        retire_after_s: float = 0.0,
        terms: TermWeights | None = None,
    ) -> None:
        """terms: the reranker's document terms, computed again for every memory written
        (as its vector is): they then follow the option as it is now, and a memory indexed
        before it was on gets them too."""
        self._replay, self._lanes, self._generations = replay, lanes, generations
        self._pointer, self._retire_after_s = pointer, retire_after_s
        self._terms = terms
        self._retiring: dict[asyncio.Task, LaneGeneration] = {}

    async def rebuild(self, embedding_model: str | None, report: Report) -> Progress:
        spec = self._generations.next_spec(embedding_model)
        generation = await self._fresh_generation(spec)
        try:
            await generation.open()
            self._lanes.begin_build(generation)
            done, total, sequence = await self._fill(generation, report)
            await generation.lexical.persisted()  # on disk before any pointer names it
            if self._pointer is not None:  # every other process now moves to it
                await self._pointer.advance(spec)
        except BaseException:
            await self._roll_back(generation)
            raise
        self._generations.commit(spec)  # from here on a restart serves the new generation
        old = await self._lanes.swap()
        await report(Progress("swapped", done, total, spec.number, spec.embedding_model))
        try:
            await self._catch_up(sequence)
        except Exception:  # the swap is done; their next write indexes them, or a repair
            log.exception("reindex could not catch up with writes made during the rebuild")
        await self._retire(old)
        log.info("lanes rebuilt: generation %d, %d memories", spec.number, done)
        return Progress("done", done, total, spec.number, spec.embedding_model)

    async def _fresh_generation(self, spec: GenerationSpec) -> LaneGeneration:
        """The generation to fill, empty: what a build of the same number cut short by a
        crash left on a server is dropped first (nothing reads it: the pointer never named
        it; embedded leftovers went at start). Built in a thread: loading another encoder
        (building its graph the first time) takes seconds that recall must not wait for."""
        build = self._generations.build
        leftover = await asyncio.to_thread(build, spec, self._lanes.current.embedder)
        if not self._generations.shared:
            return leftover
        await leftover.drop()
        return await asyncio.to_thread(build, spec, leftover.embedder)

    async def close(self) -> None:
        """Stops waiting to drop old generations: each is closed instead, left for the
        operator to drop (a restart's sweep drops embedded ones)."""
        for task, old in list(self._retiring.items()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if task.cancelled():  # also when cancelled before it ever ran
                await old.close()

    async def repair(self, workspace_ids: Sequence[str], report: Report) -> Progress:
        current = self._lanes.current
        done = total = 0
        async for batch in self._replay.batches(workspace_ids):
            await _rewrite(current, batch.memories, self._terms)
            done, total = batch.read, batch.total
            await report(self._progress("running", done, total))
        await current.lexical.persisted()
        return self._progress("done", done, total)

    async def _fill(self, generation: LaneGeneration, report: Report) -> tuple[int, int, int]:
        done = total = sequence = 0
        async for batch in self._replay.batches():
            sequence = batch.sequence
            live = [m for m in batch.memories if not m.forgotten]
            if live:
                vectors = await embed_in_chunks(generation.embedder, live)
                items = list(zip(live, vectors, strict=True))
                terms = await terms_of(self._terms, live)
                await self._lanes.write_rebuilt(items, generation, terms)
            done, total = batch.read, batch.total
            await report(Progress("running", done, total, *_described(generation)))
        return done, total, sequence

    async def _catch_up(self, sequence: int) -> None:
        """Records written since the replay's snapshot, rewritten into the new generation.
        This process mirrored its own writes into the build; other embed replicas wrote
        only into the old generation until they swapped, which the settling time lets
        them do first. Each memory's newest record read wins."""
        if self._pointer is not None:
            await asyncio.sleep(SETTLE_S)
        latest: dict[str, Memory] = {}
        async for batch in self._replay.batches(after_sequence=sequence):
            latest.update((m.id, m) for m in batch.memories)
        if latest:
            await _rewrite(self._lanes.current, list(latest.values()), self._terms)
            await self._lanes.current.lexical.persisted()
            log.info("reindex caught up %d memories written during the rebuild", len(latest))

    async def _retire(self, old: LaneGeneration) -> None:
        """Embedded lanes are this process's alone: gone at once. Server lanes are read by
        every replica, each moving off within about a second of the pointer: they are
        dropped after the grace period, in the background."""
        if not self._generations.shared:
            await _drop(old)
            return
        task = asyncio.create_task(self._drop_later(old), name=f"retire-gen-{old.spec.number}")
        self._retiring[task] = old
        task.add_done_callback(lambda done: self._retiring.pop(done, None))

    async def _drop_later(self, old: LaneGeneration) -> None:
        await asyncio.sleep(self._retire_after_s)
        await _drop(old)

    async def _roll_back(self, generation: LaneGeneration) -> None:
        if self._lanes.building is generation:
            self._lanes.abandon_build()
        await _drop(generation)
        log.warning("reindex into generation %d rolled back", generation.spec.number)

    def _progress(self, state: str, done: int, total: int) -> Progress:
        return Progress(state, done, total, *_described(self._lanes.current))


async def _drop(generation: LaneGeneration) -> None:
    try:
        await generation.drop()
        log.info("lane generation %d dropped", generation.spec.number)
    except Exception:  # the swap is done; an embedded leftover goes at the next start
        log.exception("could not drop lane generation %d", generation.spec.number)


def _described(generation: LaneGeneration) -> tuple[int, str]:
    return generation.spec.number, generation.spec.embedding_model


async def _rewrite(
    generation: LaneGeneration, memories: Sequence[Memory], terms: TermWeights | None
) -> None:
    live = [m for m in memories if not m.forgotten]
    if live:
        vectors = await embed_in_chunks(generation.embedder, live)
        items = list(zip(live, vectors, strict=True))
        await generation.vector.upsert(items, await terms_of(terms, live))
        await generation.lexical.upsert(live)
    for workspace_id in {m.workspace_id for m in memories if m.forgotten}:
        gone = [m.id for m in memories if m.forgotten and m.workspace_id == workspace_id]
        await generation.vector.delete(workspace_id, gone)
        await generation.lexical.delete(workspace_id, gone)
