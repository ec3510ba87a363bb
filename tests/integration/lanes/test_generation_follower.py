"""Replicas follow the lane generation pointer on a real nats-server: when the reindexing
embed replica moves it, every replica (each on its own connection as the query user, with
lanes of its own) swaps to the new generation without a restart; a call running on the old
one finishes there first, and the pointer never moves back."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.kv_generation_pointer import KvGenerationPointer
from memhive_adapters.runtime.generation_follower import GenerationFollower
from memhive_adapters.runtime.lane_builders import vector_dir_of
from memhive_adapters.runtime.lane_generations import LaneGenerations
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_contracts.bus_permissions import EMBED, QUERY
from memhive_domain.lane_generation import GenerationSpec
from memhive_settings import MemhiveSettings
from nats.js import JetStreamContext

from tests.fakes import FakeEmbedder
from tests.integration.conftest import bus_user

MODEL = FakeEmbedder().model_name


class Replica:
    def __init__(self, root: Path, name: str) -> None:
        self.settings = MemhiveSettings(data_dir=root / name)
        self.generations = LaneGenerations(self.settings)
        first = self.generations.build(GenerationSpec(0, MODEL), FakeEmbedder())
        self.lanes = LaneSet(first)

    async def start(self, url: str, bus_auth: EmbeddedBusAuth, key: str) -> None:
        await self.lanes.current.open()
        self.client = await connect(
            url, name="replica", timeout_s=5, credentials=bus_user(bus_auth, QUERY)
        )
        pointer = await KvGenerationPointer.open(self.client.jetstream(), key)
        self.follower = GenerationFollower(pointer, self.generations, self.lanes)
        await self.follower.start()

    async def stop(self) -> None:
        await self.follower.stop()
        await self.lanes.close()
        await self.client.drain()


async def _until(condition, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "not within the bound"
        await asyncio.sleep(0.05)


async def test_every_replica_swaps_when_the_pointer_moves(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth, tmp_path: Path
) -> None:
    key = f"test-{uuid.uuid4().hex[:8]}"
    replicas = [Replica(tmp_path, f"replica-{i}") for i in range(3)]
    embed = await connect(
        nats_url, name="embed", timeout_s=5, credentials=bus_user(bus_auth, EMBED)
    )
    try:
        for replica in replicas:
            await replica.start(nats_url, bus_auth, key)
        reindexer = await KvGenerationPointer.open(embed.jetstream(), key)
        busy = replicas[0].lanes.using()
        await busy.__aenter__()  # a recall still running on generation 0 in replica 0

        assert await reindexer.advance(GenerationSpec(1, MODEL))
        await _until(lambda: all(r.lanes.current.spec.number == 1 for r in replicas))

        old_dir = vector_dir_of(replicas[0].settings, 0)
        assert old_dir.exists()  # still read by the running call
        await busy.__aexit__(None, None, None)
        await _until(lambda: not old_dir.exists())  # embedded: this replica's own copy
        assert not await reindexer.advance(GenerationSpec(1, MODEL))  # already there
        assert not await reindexer.advance(GenerationSpec(0, MODEL))  # never back
        assert await reindexer.read() == GenerationSpec(1, MODEL)
    finally:
        for replica in replicas:
            await replica.stop()
        await embed.drain()


async def test_a_replica_started_after_the_swap_opens_the_current_generation(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth, tmp_path: Path
) -> None:
    key = f"test-{uuid.uuid4().hex[:8]}"
    pointer = await KvGenerationPointer.open(js, key)
    await pointer.advance(GenerationSpec(4, MODEL))
    late = Replica(tmp_path, "late")
    try:
        await late.start(nats_url, bus_auth, key)  # the watch delivers the current value first
        await _until(lambda: late.lanes.current.spec.number == 4)
        assert late.generations.current_spec() == GenerationSpec(4, MODEL)
    finally:
        await late.stop()


async def test_a_pointer_nobody_can_read_moves_nobody(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth, tmp_path: Path
) -> None:
    key = f"test-{uuid.uuid4().hex[:8]}"
    replica = Replica(tmp_path, "replica")
    try:
        await replica.start(nats_url, bus_auth, key)
        kv = await js.key_value("memhive_lanes")
        await kv.put(key, b"not json")
        pointer = await KvGenerationPointer.open(js, key)
        await pointer.advance(GenerationSpec(2, MODEL))  # replaces the junk
        await _until(lambda: replica.lanes.current.spec.number == 2)
    finally:
        await replica.stop()


async def test_a_replica_that_cannot_load_the_new_encoder_stays_and_says_it_is_behind(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth, tmp_path: Path
) -> None:
    key = f"test-{uuid.uuid4().hex[:8]}"
    pointer = await KvGenerationPointer.open(js, key)
    replica = Replica(tmp_path, "replica")
    try:
        await replica.start(nats_url, bus_auth, key)
        unknown = GenerationSpec(1, "an-encoder-this-version-lacks")
        await pointer.advance(unknown)
        await _until(lambda: replica.follower.behind == unknown)
        assert replica.lanes.current.spec.number == 0  # still answers from what it has
        await pointer.advance(GenerationSpec(2, MODEL))  # one it can load: it moves on
        await _until(lambda: replica.lanes.current.spec.number == 2)
        assert replica.follower.behind is None
    finally:
        await replica.stop()
