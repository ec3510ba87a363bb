"""The LLM spend bound shared across replicas: several guards, each on its own connection as
the link classifier's bus user, spend concurrently against one real nats-server."""

from __future__ import annotations

import asyncio
import uuid

from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.kv_spend_counters import KvSpendCounters
from memhive_application.spend_guard import SpendGuard
from memhive_contracts.bus_permissions import BULLETIN, LINK_CLASSIFIER
from nats.js import JetStreamContext

from tests.fakes import FixedClock
from tests.integration.conftest import bus_user

REPLICAS = 4


async def _guards(nats_url: str, bus_auth: EmbeddedBusAuth, user: str, consumer: str, **bounds):
    credentials: BusCredentials = bus_user(bus_auth, user)
    clients = [
        await connect(nats_url, name=f"replica-{i}", timeout_s=5, credentials=credentials)
        for i in range(REPLICAS)
    ]
    clock = FixedClock()
    guards = [
        SpendGuard(
            clock, counters=await KvSpendCounters.open(c.jetstream()), consumer=consumer, **bounds
        )  # fmt: skip
        for c in clients
    ]
    return clients, guards


async def test_replicas_together_never_pass_the_calls_per_minute(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    consumer = f"lc-{uuid.uuid4().hex[:8]}"
    clients, guards = await _guards(
        nats_url, bus_auth, LINK_CLASSIFIER, consumer, calls_per_minute=7, tokens_per_day=10**6
    )
    try:
        granted = await asyncio.gather(*(g.try_acquire(10) for g in guards for _ in range(6)))
    finally:
        for client in clients:
            await client.drain()

    assert granted.count(True) == 7  # 24 attempts from 4 replicas, one bound of 7


async def test_tokens_spent_by_every_replica_add_up_without_a_lost_update(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    consumer = f"bulletin-{uuid.uuid4().hex[:8]}"
    clients, guards = await _guards(
        nats_url, bus_auth, BULLETIN, consumer, calls_per_minute=1000, tokens_per_day=1000
    )
    try:
        await asyncio.gather(*(g.record(10) for g in guards for _ in range(25)))
        assert [await g.tokens_today() for g in guards] == [1000] * REPLICAS
        assert not await guards[0].try_acquire(1)  # the day's bound is spent, fleet-wide
    finally:
        for client in clients:
            await client.drain()
