"""Reindex rate: memories rebuilt per second into a new lane generation (re-embedded with
the local model), and recall latency and failures while the rebuild runs, on a fresh
`memhive run` loaded with MEMHIVE_BENCH_REINDEX_SIZE memories (default 5000)."""

from __future__ import annotations

import asyncio
import io
import os
import time

from memhive_client import AsyncMemhiveClient, MemhiveError

from bench.corpus import base_sentences, default_encoder
from bench.load_latency import BASES, bulk_load, percentiles
from bench.running_stack import RunningStack, running_stack
from memhive_cli.reindex import reindex

SIZE = int(os.environ.get("MEMHIVE_BENCH_REINDEX_SIZE", "5000"))


async def recall_during(client: AsyncMemhiveClient, bases: list[str], job: asyncio.Task) -> dict:
    samples, failures, n = [], 0, 0
    while not job.done():
        query = f"when will the team {bases[n % len(bases)].split(' will ')[1]}"
        began = time.perf_counter()
        try:
            found = bool(await client.recall(query))
        except MemhiveError:  # an error answer (the client does not retry here)
            found = False
        samples.append((time.perf_counter() - began) * 1000)
        failures += not found
        n += 1
    return {"failures": failures, **percentiles(samples or [0.0])}


async def run(stack: RunningStack, size: int = SIZE) -> str:
    bases = base_sentences(BASES)
    encoder = default_encoder()
    await bulk_load(stack, size, 0, bases, encoder.embed_sync(bases), encoder.model_name)
    nc = await stack.bus()
    try:
        async with stack.client() as client:
            began = time.perf_counter()
            job = asyncio.create_task(reindex(nc, stall_timeout_s=600, out=io.StringIO()))
            recalls = await recall_during(client, bases, job)
            final = await job
            elapsed = time.perf_counter() - began
    finally:
        await nc.close()
    return render(size, final, elapsed, recalls)


def render(size: int, final, elapsed: float, recalls: dict) -> str:
    return (
        f"{size:,} memories loaded, then `memhive reindex` (full rebuild into generation "
        f"{final.generation}, re-embedded with {final.embedding_model}) while one client "
        f"kept recalling.\n\n"
        "| memories reindexed | outcome | time (s) | memories/s | recalls during | "
        "failed recalls | recall p50 / p95 (ms) |\n|---|---|---|---|---|---|---|\n"
        f"| {final.done:,} | {final.state} | {elapsed:.1f} | {final.done / elapsed:.0f} | "
        f"{recalls['n']} | {recalls['failures']} | {recalls['p50']:.1f} / {recalls['p95']:.1f} |"
    )


def main() -> None:
    with running_stack({"MEMHIVE_RUN_SERVICES": '["ingest","embed"]'}) as stack:
        print(asyncio.run(run(stack)))


if __name__ == "__main__":
    main()
