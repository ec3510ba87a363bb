"""Keeps a process on the lane generation the bus pointer names.

Every process that opens the lanes runs one: when a reindex (in an embed replica) moves the
pointer, the others open the new generation and swap to it within about a second, with no
restart; calls already running finish on the old one. The process that built the
generation swaps by itself and is left alone. An embedded old generation is this
process's own copy, so it is deleted here; a server one is shared and is the reindexer's
to drop, after a grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Protocol

from memhive_domain.lane_generation import GenerationSpec, supersedes

from memhive_adapters.runtime.lane_generations import LaneGenerations
from memhive_adapters.runtime.lane_set import LaneSet

log = logging.getLogger(__name__)

RETRY_S = 1.0


class PointerChanges(Protocol):
    async def changes(self) -> AsyncIterator[GenerationSpec]: ...


class GenerationFollower:
    def __init__(self, pointer: PointerChanges, generations: LaneGenerations, lanes: LaneSet):
        self._pointer, self._generations, self._lanes = pointer, generations, lanes
        self._task: asyncio.Task | None = None
        # The generation every other process serves and this one could not load, if any.
        self.behind: GenerationSpec | None = None

    async def start(self) -> None:
        changes = await self._pointer.changes()  # subscribed before start returns
        self._task = asyncio.create_task(self._follow(changes), name="lane-generation-follower")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def follow(self, spec: GenerationSpec) -> bool:
        """Swap to `spec` if it is newer than what this process serves; True if it did."""
        self._generations.learn(spec)
        building = self._lanes.building
        if not supersedes(spec, self._lanes.current.spec):
            return False
        if building is not None and building.spec.number == spec.number:
            return False  # this process built it and swaps itself
        try:  # in a thread: a new encoder takes seconds to load (its graph, to build)
            generation = await asyncio.to_thread(
                self._generations.build, spec, self._lanes.current.embedder
            )
        except Exception:
            self._cannot_serve(spec)
            return False
        self.behind = None
        await generation.open()
        old = await self._lanes.adopt(generation)
        if self._generations.shared:
            await old.close()
        else:
            await old.drop()
        log.info("lanes now serve generation %d (%s)", spec.number, spec.embedding_model)
        return True

    def _cannot_serve(self, spec: GenerationSpec) -> None:
        """Every other process moves to `spec`; this one cannot load its encoder (a version
        that lacks it, a graph it cannot build). It stays on the old generation, which is
        soon dropped, so it says it is not ready (/readyz) instead of answering from it."""
        self.behind = spec
        log.exception(
            "cannot serve lane generation %d: its encoder %s does not load here; this "
            "process stays on generation %d and is not ready until it is restarted with it",
            spec.number,
            spec.embedding_model,
            self._lanes.current.spec.number,
        )

    async def _follow(self, changes: AsyncIterator[GenerationSpec]) -> None:
        while True:
            try:
                async for spec in changes:
                    await self.follow(spec)
            except Exception:  # a broken watch: re-established; the lanes keep serving
                log.warning("following the lane generation failed; retrying", exc_info=True)
            await asyncio.sleep(RETRY_S)
            with contextlib.suppress(Exception):
                changes = await self._pointer.changes()
