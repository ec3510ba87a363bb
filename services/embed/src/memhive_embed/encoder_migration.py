"""The lanes move to the configured encoder by themselves.

When the generation being served records another encoder than settings ask for (the
setting changed, e.g. to `all-MiniLM-L6-v2`, or a version whose default
differs), a full rebuild with the configured encoder runs in the background
(`Reindexer.rebuild`): the old generation keeps serving recall and conflict checks, with
its own encoder, while every write is mirrored into the new one; then the pointer moves
and the new generation serves. A crash at any point leaves the old generation serving and
the next start begins again (embedded: the start's sweep drops the half-built generation;
server lanes: the rebuild drops it). With several embed replicas one holds the lease and
migrates; the others follow the pointer when it moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from memhive_embed.reindex import Progress, Reindexer

log = logging.getLogger(__name__)

RETRY_S = 30.0


class MigrationLease(Protocol):
    """Who migrates when several replicas could (nats/kv_migration_lease.py)."""

    async def acquire(self, encoder: str) -> bool:
        """True when this process may migrate to `encoder` now."""
        ...

    def held(self) -> AbstractAsyncContextManager[None]:
        """Keeps the lease while the block runs (the block is cancelled if it is lost),
        then gives it back."""
        ...


class EncoderMigration:
    def __init__(
        self,
        reindexer: Reindexer,
        served_encoder: Callable[[], str],
        encoder: str,
        lease: MigrationLease | None = None,
        *,
        retry_s: float = RETRY_S,
    ) -> None:
        """`served_encoder`: the encoder of the generation serving now."""
        self._reindexer, self._served, self._encoder = reindexer, served_encoder, encoder
        self._lease, self._retry_s = lease, retry_s
        self._task: asyncio.Task | None = None

    @property
    def pending(self) -> bool:
        return self._served() != self._encoder

    async def start(self) -> None:
        if self.pending:
            self._task = asyncio.create_task(self._run(), name="encoder-migration")

    async def stop(self) -> None:
        """A rebuild cut short rolls back: the old generation stays current."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def done(self) -> None:
        """Returns once the lanes serve the configured encoder (for tests and tools)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def _run(self) -> None:
        while self.pending:
            try:
                await self._attempt()
            except Exception:  # the old generation serves on; so does the next attempt
                log.exception("migrating the lanes to %s failed", self._encoder)
            if self.pending:
                await asyncio.sleep(self._retry_s)

    async def _attempt(self) -> None:
        if self._lease is None:
            await self._migrate()
        elif await self._lease.acquire(self._encoder):
            async with self._lease.held():
                if self.pending:  # another replica may have finished meanwhile
                    await self._migrate()

    async def _migrate(self) -> None:
        served = self._served()
        log.warning(
            "the lanes hold vectors of %s, settings ask for %s: rebuilding them in the "
            "background; the old ones serve meanwhile",
            served,
            self._encoder,
        )
        final = await self._reindexer.rebuild(self._encoder, _log_progress)
        log.warning(
            "lanes migrated to %s: generation %d, %d memories",
            self._encoder,
            final.generation,
            final.done,
        )


async def _log_progress(progress: Progress) -> None:
    if progress.state != "running" or progress.done == progress.total:
        log.info("encoder migration: %s, %d/%d", progress.state, progress.done, progress.total)
