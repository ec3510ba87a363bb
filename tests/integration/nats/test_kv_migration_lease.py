"""The encoder migration lease on a real nats-server, as the embed user: one replica holds
it, another is refused until it expires, a holder whose lease was taken has its migration
cancelled, and giving it back frees it at once."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from memhive_adapters.nats import kv_migration_lease
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.kv_migration_lease import EXPIRES_S, KvMigrationLease
from memhive_contracts.bus_permissions import EMBED
from memhive_contracts.streams import LANES_BUCKET

from tests.integration.conftest import bus_user


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def embed_kv(js, nats_url: str, bus_auth: EmbeddedBusAuth):
    client = await connect(
        nats_url, name="embed", timeout_s=5, credentials=bus_user(bus_auth, EMBED)
    )
    try:
        yield await client.jetstream().key_value(LANES_BUCKET)
    finally:
        await client.drain()


async def test_one_replica_holds_the_lease_until_it_expires_or_is_given_back(embed_kv) -> None:
    key, clock = f"test-{uuid.uuid4().hex[:8]}.migration", Clock()
    first = KvMigrationLease(embed_kv, key, clock=clock)
    second = KvMigrationLease(embed_kv, key, clock=clock)
    assert await first.acquire("int8")
    assert await first.acquire("int8")  # its own lease
    assert not await second.acquire("int8")
    clock.now += EXPIRES_S + 1  # the holder died without renewing
    assert await second.acquire("int8")
    async with second.held():
        pass
    assert await first.acquire("int8")  # given back: free at once


async def test_a_holder_whose_lease_was_taken_over_is_cancelled(
    embed_kv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kv_migration_lease, "RENEW_S", 0.05)
    key, clock = f"test-{uuid.uuid4().hex[:8]}.migration", Clock()
    slow = KvMigrationLease(embed_kv, key, clock=clock)
    assert await slow.acquire("int8")

    async def migrate() -> None:
        async with slow.held():
            await asyncio.sleep(30)

    running = asyncio.create_task(migrate())
    await asyncio.sleep(0.1)  # renewed at least once
    # Another replica whose clock says the lease expired (its holder stalled, say) takes it;
    # a renewal racing its compare-and-set makes it ask again.
    late = Clock()
    late.now = clock.now + EXPIRES_S + 1
    taker = KvMigrationLease(embed_kv, key, clock=late)
    for _ in range(50):
        if await taker.acquire("int8"):
            break
    else:
        raise AssertionError("never took the lease over")
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(running, 5)
