"""Distributed mode on a real NATS cluster, every service its own process: three clustered
nats-servers (JetStream, streams and KV at R3), two ingest replicas, the link classifier and
the bulletin service as `memhive serve` processes, and the gateway with the embed service in
one `memhive run` process (the embedded lanes allow one owning process, so embed and the
gateway share it). Under a burst of saves one NATS server and one ingest replica are killed
(SIGKILL); every acknowledged save must end up recallable, exactly once."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from pathlib import Path

import httpx
import pytest
from memhive_client import AsyncMemhiveClient, MemhiveError, RetryPolicy

from tests.e2e.cluster.processes import (
    NatsCluster,
    Process,
    declare_streams,
    memhive,
    wait_ready,
)

TOKEN = "cluster-test-token"
SAVES = 48
KILL_AFTER = 16
CONCURRENCY = 6
pytestmark = pytest.mark.timeout(300)


def _client(url: str, timeout_s: float) -> AsyncMemhiveClient:
    # No retries: a save is acknowledged by the answer to its one request, or not at all.
    return AsyncMemhiveClient(url, TOKEN, timeout_s=timeout_s, retry=RetryPolicy(attempts=1))


async def _burst(url: str, tag: str, on_progress) -> dict[str, str]:
    """SAVES saves, CONCURRENCY at a time; returns body -> id of every acknowledged one."""
    acknowledged: dict[str, str] = {}
    gate = asyncio.Semaphore(CONCURRENCY)
    answered = 0

    async def save(client: AsyncMemhiveClient, i: int) -> None:
        nonlocal answered
        body = f"Cluster fact {i} about {tag}-{i:03d}: the deploy window is {i} minutes"
        async with gate:
            try:
                saved = await client.save("fact", body, force=True)
            except (httpx.TransportError, MemhiveError):  # not acknowledged
                saved = None
        answered += 1
        if saved is not None and saved.status in ("persisted", "accepted"):  # 201 or 202
            acknowledged[body] = saved.id
        on_progress(answered)

    async with _client(url, timeout_s=60) as client:
        await asyncio.gather(*(save(client, i) for i in range(SAVES)))
    return acknowledged


async def test_no_acknowledged_save_is_lost_when_a_nats_node_and_an_ingest_replica_die(
    tmp_path: Path,
) -> None:
    cluster = NatsCluster(tmp_path / "nats")
    processes: list[Process] = []
    try:
        cluster.start()
        await declare_streams(cluster.url, replicas=3)  # at R3
        env = {"MEMHIVE_NATS__URL": cluster.url, "MEMHIVE_NATS__REPLICAS": "3",
               "MEMHIVE_DEV_TOKEN": TOKEN, "MEMHIVE_QUERY__SAVE_WAIT_TIMEOUT_S": "20"}  # fmt: skip
        gateway = memhive("gateway", ["run"], tmp_path, env | {"MEMHIVE_RUN_SERVICES": '["embed"]'})
        ingest = [memhive(f"ingest-{i}", ["serve", "ingest"], tmp_path, env) for i in (1, 2)]
        others = [
            memhive(name, ["serve", name], tmp_path, env)
            for name in ("link_classifier", "bulletin")
        ]
        processes = [gateway, *ingest, *others]
        await asyncio.to_thread(wait_ready, processes, 180)
        url = f"http://127.0.0.1:{gateway.http_port}"
        tag = uuid.uuid4().hex[:8]
        killed = asyncio.Event()

        def on_progress(answered: int) -> None:
            if answered == KILL_AFTER and not killed.is_set():
                cluster.nodes[1].kill()
                ingest[0].kill()
                killed.set()

        acknowledged = await _burst(url, tag, on_progress)

        assert killed.is_set()
        print(f"acknowledged {len(acknowledged)} of {SAVES} saves")  # shown with pytest -s
        assert len(acknowledged) >= SAVES // 4, "saves go on being acknowledged"
        async with _client(url, timeout_s=30) as client:
            deadline = time.monotonic() + 90
            while True:
                listed = [m async for m in client.iter_memories(page_size=100) if tag in m.body]
                missing = set(acknowledged.values()) - {m.id for m in listed}
                if not missing:
                    break
                assert time.monotonic() < deadline, (
                    f"{len(missing)} acknowledged saves never became listable\n"
                    + "\n".join(p.tail() for p in processes)
                )
                await asyncio.sleep(0.5)
            bodies = [m.body for m in listed]
            assert len(bodies) == len(set(bodies)), "a save was applied twice"
            for body, memory_id in acknowledged.items():
                token = re.search(rf"{tag}-\d+", body).group(0)
                hits = [hit.id for hit in await client.recall(token, max_results=5)]
                assert hits.count(memory_id) == 1, (body, hits)
        metrics = f"http://127.0.0.1:{ingest[1].http_port}/metrics"
        async with httpx.AsyncClient(timeout=30) as http:
            survivor = await http.get(metrics)
        # The surviving replica took over the killed one's share of the durable `ingest`.
        assert re.search(
            r'memhive_consumer_messages_total\{[^}]*consumer="ingest"[^}]*outcome="ack"[^}]*\} [1-9]',
            survivor.text,
        )
    finally:
        for process in processes:
            process.stop()
        cluster.stop()
