"""Distributed mode, lanes on servers: two query replicas and an embed replica as separate
`memhive serve` processes on a nats-server from the wheel. A reindex in the embed replica
moves the lane generation pointer; both query replicas serve the new generation within
seconds, with no restart, and the old collection and index are dropped after the grace
period. Needs a Qdrant server and OpenSearch (MEMHIVE_TEST_QDRANT_URL and
MEMHIVE_TEST_OPENSEARCH_URL); the same mechanism runs on every machine in
tests/integration/lanes/test_generation_follower.py."""

from __future__ import annotations

import asyncio
import os
import re
import time
import uuid
from pathlib import Path

import httpx
import pytest
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_server import find_nats_server
from memhive_client import AsyncMemhiveClient

from memhive_cli.reindex import reindex
from tests.e2e.cluster.processes import (
    Process,
    declare_streams,
    free_port,
    memhive,
    spawn,
    wait_ready,
)

TOKEN = "generations-test-token"
QDRANT = os.environ.get("MEMHIVE_TEST_QDRANT_URL")
OPENSEARCH = os.environ.get("MEMHIVE_TEST_OPENSEARCH_URL")
pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        not (QDRANT and OPENSEARCH),
        reason="lanes shared by separate processes need a Qdrant server and OpenSearch: "
        "set MEMHIVE_TEST_QDRANT_URL and MEMHIVE_TEST_OPENSEARCH_URL",
    ),
]
FACTS = [
    "The payments team freezes deploys during the last week of each quarter",
    "Grafana dashboards for the API live in the platform folder",
]


def _client(process: Process) -> AsyncMemhiveClient:
    return AsyncMemhiveClient(f"http://127.0.0.1:{process.http_port}", TOKEN, timeout_s=60)


def _generation(process: Process) -> int | None:
    text = httpx.get(f"http://127.0.0.1:{process.http_port}/metrics", timeout=5).text
    found = re.search(r"^memhive_lane_generation(?:\{[^}]*\})? (\d+)", text, re.M)
    return int(found.group(1)) if found else None


async def _until(condition, processes: list[Process], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not await asyncio.to_thread(condition):
        assert time.monotonic() < deadline, "\n".join(p.tail() for p in processes)
        await asyncio.sleep(0.2)


async def test_query_replicas_follow_a_reindex_and_the_old_generation_is_dropped(
    tmp_path: Path,
) -> None:
    from opensearchpy import AsyncOpenSearch
    from qdrant_client import AsyncQdrantClient

    name = f"memhive-e2e-{uuid.uuid4().hex[:8]}"
    nats_port = free_port()
    nats_dir = tmp_path / "nats"
    nats_dir.mkdir()
    server = spawn("nats", [str(find_nats_server()), "-js", "-a", "127.0.0.1", "-p",
                            str(nats_port), "-sd", str(nats_dir)], nats_dir)  # fmt: skip
    url = f"nats://127.0.0.1:{nats_port}"
    env = {
        "MEMHIVE_NATS__URL": url,
        "MEMHIVE_DEV_TOKEN": TOKEN,
        "MEMHIVE_VECTOR__BACKEND": "qdrant",
        "MEMHIVE_VECTOR__URL": QDRANT,
        "MEMHIVE_VECTOR__COLLECTION": name,
        "MEMHIVE_LEXICAL__BACKEND": "opensearch",
        "MEMHIVE_LEXICAL__URL": OPENSEARCH,
        "MEMHIVE_LEXICAL__INDEX": name,
        "MEMHIVE_EMBEDDER__RETIRE_AFTER_S": "1",
    }
    processes: list[Process] = []
    try:
        await declare_streams(url)
        queries = [memhive(f"query-{i}", ["serve", "query"], tmp_path, env) for i in (1, 2)]
        workers = [memhive(n, ["serve", n], tmp_path, env) for n in ("ingest", "embed")]
        processes = [*queries, *workers]
        await asyncio.to_thread(wait_ready, processes, 180)
        ids = []
        async with _client(queries[0]) as client:
            for body in FACTS:
                ids.append((await client.save("fact", body, wait="indexed")).id)
        assert [_generation(q) for q in queries] == [0, 0]

        nc = await connect(url, name="reindex-test", timeout_s=5)
        try:
            final = await reindex(nc, stall_timeout_s=120)
        finally:
            await nc.drain()
        assert final.state == "done" and final.generation == 1

        # No restart: each query replica swaps on the pointer's change.
        await _until(lambda: [_generation(q) for q in queries] == [1, 1], processes)
        for query in queries:
            async with _client(query) as client:
                assert (await client.recall("Grafana dashboards"))[0].id == ids[1]
        qdrant, opensearch = AsyncQdrantClient(url=QDRANT), AsyncOpenSearch(hosts=[OPENSEARCH])
        try:

            async def old_dropped() -> bool:
                return not (
                    await qdrant.collection_exists(name)
                    or await opensearch.indices.exists(index=name)
                )

            deadline = time.monotonic() + 30
            while not await old_dropped():
                assert time.monotonic() < deadline, "generation 0 was never dropped"
                await asyncio.sleep(0.5)
            assert await qdrant.collection_exists(f"{name}-gen-1")
        finally:
            await qdrant.delete_collection(f"{name}-gen-1")
            await opensearch.indices.delete(index=f"{name}-gen-1", ignore=404)
            await qdrant.close()
            await opensearch.close()
    finally:
        for process in processes:
            process.stop()
        server.stop()
