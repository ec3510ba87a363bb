"""A reindex request reaches one embed replica, not every one (a queue group)."""

from __future__ import annotations

import asyncio
import uuid

from memhive.v1.admin_pb2 import ReindexMemories, ReindexProgress
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_contracts import subjects
from memhive_contracts.bus_permissions import EMBED
from memhive_contracts.codec import decode, encode
from memhive_embed.reindex import Progress
from memhive_embed.reindex_responder import ReindexResponder
from nats.aio.client import Client

from tests.integration.conftest import bus_user


class CountingReindexer:
    def __init__(self) -> None:
        self.rebuilds = 0

    async def rebuild(self, embedding_model, report) -> Progress:
        self.rebuilds += 1
        return Progress("done", 0, 0, 1, "all-MiniLM-L6-v2")

    async def close(self) -> None:
        pass


async def test_one_replica_takes_each_reindex_request(
    nats_client: Client, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    replicas = [
        await connect(
            nats_url, name=f"embed-{i}", timeout_s=5, credentials=bus_user(bus_auth, EMBED)
        )
        for i in range(3)
    ]
    reindexers = [CountingReindexer() for _ in replicas]
    responders = [ReindexResponder(c, r) for c, r in zip(replicas, reindexers, strict=True)]
    for responder in responders:
        await responder.start()
    job_id = uuid.uuid4().hex
    done = asyncio.get_running_loop().create_future()

    async def on_progress(msg) -> None:
        if not done.done():
            done.set_result(msg)

    progress = await nats_client.subscribe(subjects.reindex_progress(job_id), cb=on_progress)
    try:
        reply = await nats_client.request(
            subjects.REINDEX_MEMORIES, encode(ReindexMemories(job_id=job_id)), timeout=5
        )
        assert decode(reply.data, ReindexProgress).state == "accepted"
        assert decode((await asyncio.wait_for(done, 10)).data, ReindexProgress).state == "done"
        await asyncio.sleep(0.3)  # a second replica's job would have started by now
    finally:
        await progress.unsubscribe()
        for responder, client in zip(responders, replicas, strict=True):
            await responder.stop()
            await client.drain()

    assert sorted(r.rebuilds for r in reindexers) == [0, 0, 1], [r.rebuilds for r in reindexers]
