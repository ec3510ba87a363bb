"""EncoderMigration: rebuilds the lanes with the configured encoder when the serving
generation records another, only while it holds the lease, and again after a failure."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from memhive_embed.encoder_migration import EncoderMigration
from memhive_embed.reindex import Progress


class FakeReindexer:
    """Rebuilds by setting what the lanes serve; `failures` rebuilds raise first."""

    def __init__(self, served: list[str], failures: int = 0) -> None:
        self.served, self.failures = served, failures
        self.rebuilds: list[str] = []

    async def rebuild(self, encoder: str, report) -> Progress:
        self.rebuilds.append(encoder)
        if self.failures:
            self.failures -= 1
            raise RuntimeError("the encoder did not load")
        await report(Progress("running", 2, 2, 1, encoder))
        self.served[0] = encoder
        return Progress("done", 2, 2, 1, encoder)


class FakeLease:
    def __init__(self, free: bool) -> None:
        self.free, self.held_by_us = free, False
        self.asked: list[str] = []

    async def acquire(self, encoder: str) -> bool:
        self.asked.append(encoder)
        return self.free

    @asynccontextmanager
    async def held(self):
        self.held_by_us = True
        try:
            yield
        finally:
            self.held_by_us = False


def migration(served: list[str], reindexer, lease=None) -> EncoderMigration:
    return EncoderMigration(reindexer, lambda: served[0], "int8", lease, retry_s=0.01)


async def test_lanes_of_the_configured_encoder_are_left_alone() -> None:
    served = ["int8"]
    reindexer = FakeReindexer(served)
    moving = migration(served, reindexer)
    await moving.start()
    await moving.done()
    assert reindexer.rebuilds == [] and not moving.pending


async def test_lanes_of_another_encoder_are_rebuilt_with_the_configured_one() -> None:
    served = ["fp32"]
    reindexer = FakeReindexer(served)
    moving = migration(served, reindexer)
    await moving.start()
    await moving.done()
    assert reindexer.rebuilds == ["int8"] and served == ["int8"]


async def test_a_failed_rebuild_is_tried_again_while_the_old_lanes_serve() -> None:
    served = ["fp32"]
    reindexer = FakeReindexer(served, failures=2)
    moving = migration(served, reindexer)
    await moving.start()
    await moving.done()
    assert reindexer.rebuilds == ["int8"] * 3 and served == ["int8"]


async def test_without_the_lease_another_replica_migrates_and_this_one_waits() -> None:
    served = ["fp32"]
    reindexer, lease = FakeReindexer(served), FakeLease(free=False)
    moving = migration(served, reindexer, lease)
    await moving.start()
    await asyncio.sleep(0.05)
    assert reindexer.rebuilds == [] and len(lease.asked) >= 2
    served[0] = "int8"  # the other replica moved the pointer; this one followed it
    await asyncio.wait_for(moving.done(), 1)
    assert reindexer.rebuilds == []


async def test_with_the_lease_it_migrates_holding_it_then_gives_it_back() -> None:
    served = ["fp32"]
    lease = FakeLease(free=True)
    seen_holding: list[bool] = []

    class Watching(FakeReindexer):
        async def rebuild(self, encoder, report):
            seen_holding.append(lease.held_by_us)
            return await super().rebuild(encoder, report)

    moving = migration(served, Watching(served), lease)
    await moving.start()
    await moving.done()
    assert seen_holding == [True] and not lease.held_by_us and served == ["int8"]


async def test_stopping_cancels_a_rebuild_in_progress() -> None:
    served, started = ["fp32"], asyncio.Event()

    class Endless(FakeReindexer):
        async def rebuild(self, encoder, report):
            started.set()
            await asyncio.Event().wait()

    moving = migration(served, Endless(served))
    await moving.start()
    await started.wait()
    await asyncio.wait_for(moving.stop(), 1)
    assert served == ["fp32"]
