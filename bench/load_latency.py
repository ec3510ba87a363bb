"""Recall latency over HTTP at 10k and 100k memories, save -> recallable latency, sustained
save throughput, resident memory, and MCP tool-call latency, on a fresh `memhive run`."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from datetime import UTC, datetime

import httpx2
import numpy as np
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_adapters.embedding.minilm import MiniLmEmbedder
from memhive_client import AsyncMemhiveClient
from memhive_contracts import streams, subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.ids import uuid7

from bench.corpus import base_sentences, noisy
from bench.running_stack import RunningStack, rss_mib

BASES = 2000
QUERIES = 200


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "n": len(ordered),
    }


async def bulk_load(
    stack: RunningStack, count: int, start: int, bases: list[str], vectors: np.ndarray
) -> float:
    """Publish SaveMemory commands on the bus (as a hook with its own embeddings would); returns memories/s
    from the first publish until ingest and embed have drained."""
    nc = await stack.bus()
    js = nc.jetstream()
    rng = np.random.default_rng(start)
    began = time.perf_counter()
    pending = []
    for n in range(start, start + count):
        base = n % len(bases)
        now = datetime.now(UTC)
        command = commands_pb2.SaveMemory(
            command_id=str(uuid.uuid4()),
            memory=pb.Memory(
                id=uuid7(int(now.timestamp() * 1000)),
                kind=pb.MEMORY_KIND_FACT,
                body=f"{bases[base]} (ref {n})",
                product_id=f"product-{n % 20}",
                scope=pb.SCOPE_PRODUCT,
            ),
            embedding=pb.Embedding(model="all-MiniLM-L6-v2", values=noisy(vectors[base], rng)),
            requested_by="bench",
            requested_at=to_timestamp(now),
        )
        subject = subjects.for_workspace(subjects.SAVE_MEMORY, "dev")
        pending.append(
            js.publish(
                subject,
                command.SerializeToString(),
                headers={streams.MSG_ID_HEADER: command.command_id},
            )
        )
        if len(pending) >= 500:
            await asyncio.gather(*pending)
            pending.clear()
    await asyncio.gather(*pending)
    await wait_drained(js, ("ingest", "embed"))
    rate = count / (time.perf_counter() - began)
    await nc.close()
    return rate


async def wait_drained(js, durables) -> None:
    while True:
        infos = [await js.consumer_info(streams.LOG_STREAM, d) for d in durables]
        if all(i.num_pending == 0 and i.num_ack_pending == 0 for i in infos):
            return
        await asyncio.sleep(0.5)


async def recall_latency(client: AsyncMemhiveClient, bases: list[str]) -> dict:
    queries = [f"when will the team {b.split(' will ')[1]}" for b in bases[:QUERIES]]
    for q in queries[:20]:  # warm up
        await client.recall(q)
    samples = []
    for q in queries:
        t = time.perf_counter()
        await client.recall(q)  # raises on an error answer
        samples.append((time.perf_counter() - t) * 1000)
    return percentiles(samples)


async def save_to_recallable(client: AsyncMemhiveClient, count: int = 100) -> dict:
    samples = []
    for n in range(count):
        body = f"Latency probe {n}: the canary deploy {uuid.uuid4().hex[:8]} passed"
        t = time.perf_counter()
        saved = await client.save("observation", body, force=True, wait="indexed")
        samples.append((time.perf_counter() - t) * 1000)
        assert saved.status == "indexed", saved
    return percentiles(samples)


async def gateway_throughput(stack: RunningStack, count: int = 1000, clients: int = 16) -> float:
    bodies = [
        f"Throughput probe {n}: deploy {uuid.uuid4().hex[:10]} of service {n % 37} succeeded"
        for n in range(count)
    ]
    queue: asyncio.Queue[str] = asyncio.Queue()
    for b in bodies:
        queue.put_nowait(b)

    async def worker(client: AsyncMemhiveClient) -> None:
        while not queue.empty():
            body = queue.get_nowait()
            await client.save("event", body, force=True, wait="indexed")  # raises on an error

    began = time.perf_counter()
    async with stack.client(max_connections=clients) as client:
        await asyncio.gather(*(worker(client) for _ in range(clients)))
    return count / (time.perf_counter() - began)


async def mcp_recall_latency(stack: RunningStack, bases: list[str]) -> dict:
    headers = {"Authorization": f"Bearer {stack.token}"}
    samples = []
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{stack.url}/mcp", http_client=http)) as mcp,
    ):
        for n, base in enumerate(bases[: QUERIES // 2]):
            t = time.perf_counter()
            result = await mcp.call_tool("recall_memory", {"query": base})
            if n >= 10:
                samples.append((time.perf_counter() - t) * 1000)
            assert not result.is_error
    return percentiles(samples)


async def run(stack: RunningStack, sizes=(10_000, 100_000)) -> dict:
    bases = base_sentences(BASES)
    vectors = MiniLmEmbedder().embed_sync(bases)
    report = {"idle_rss_mib": rss_mib(stack.pid), "sizes": {}}
    loaded = 0
    async with stack.client() as client:
        for size in sizes:
            rate = await bulk_load(stack, size - loaded, loaded, bases, vectors)
            loaded = size
            row = {
                "bulk_load_per_s": rate,
                "recall": await recall_latency(client, bases),
                "rss_mib": rss_mib(stack.pid),
            }
            if size == sizes[0]:
                row["save_to_recallable"] = await save_to_recallable(client)
                row["mcp_recall"] = await mcp_recall_latency(stack, bases)
                row["gateway_saves_per_s"] = await gateway_throughput(stack)
            report["sizes"][size] = row
    return report


def render(report: dict) -> str:
    lines = [
        "| memories | recall p50 / p95 (ms) | MCP recall p50 / p95 (ms) | save→recallable p50 / p95 (ms) | bus bulk load (memories/s) | gateway saves/s (16 clients, wait=indexed) | RSS (MiB, memhive + nats-server) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| 0 | | | | | | {report['idle_rss_mib']:.0f} |",
    ]
    for size, row in report["sizes"].items():

        def pair(key, row=row):
            return f"{row[key]['p50']:.1f} / {row[key]['p95']:.1f}" if key in row else ""

        saves = f"{row['gateway_saves_per_s']:.0f}" if "gateway_saves_per_s" in row else ""
        lines.append(
            f"| {size:,} | {pair('recall')} | {pair('mcp_recall')} | {pair('save_to_recallable')} | {row['bulk_load_per_s']:.0f} | {saves} | {row['rss_mib']:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    from bench.running_stack import running_stack

    sizes = tuple(int(s) for s in sys.argv[1:]) or (10_000, 100_000)
    with running_stack({"MEMHIVE_RUN_SERVICES": '["ingest","embed"]'}) as stack:
        print(render(asyncio.run(run(stack, sizes))))
