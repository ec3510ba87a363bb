"""What issue 27's recall steps cost at 10k memories, through HTTP, on a shared machine:
a fresh `memhive run` with the steps on (the defaults) and one with them off
(`MEMHIVE_QUERY__FOLLOW_TOP=0` and the answer-fit weights at 0), alternating, each bulk
loaded with `make bench`'s 10k corpus and asked `bench.load_latency`'s 200 recalls. Wall
time on a loaded machine swings with the neighbours' work, so each run also reports the
stack's CPU per recall (user + system of its process, from /proc), the figure to compare:

    python -m bench.recall_steps_cost [rounds]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys

from bench.corpus import base_sentences, default_encoder
from bench.embed_scaling import cpu_seconds
from bench.load_latency import (
    BASES,
    QUERIES,
    WARM_UP,
    bulk_load,
    recall_latency,
    wait_for_hnsw_builds,
)
from bench.running_stack import running_stack

SIZE = 10_000
STEPS_OFF = {
    "MEMHIVE_QUERY__FOLLOW_TOP": "0",
    "MEMHIVE_QUERY__REPLY_SHARE": "0",
    "MEMHIVE_QUERY__SUBJECT_BOOST": "0",
    "MEMHIVE_QUERY__DATED_BOOST": "0",
    "MEMHIVE_QUERY__QUESTION_PENALTY": "0",
}
VARIANTS = {"issue 27's steps on (default)": {}, "issue 27's steps off": STEPS_OFF}


async def measure(env: dict[str, str], bases: list[str], vectors, model: str) -> dict:
    with running_stack(env) as stack:
        await bulk_load(stack, SIZE, 0, bases, vectors, model)
        await wait_for_hnsw_builds(stack)
        async with stack.client() as client:
            before = cpu_seconds(stack.pid)
            latency = await recall_latency(client, bases)
            spent = cpu_seconds(stack.pid) - before
    # recall_latency asks WARM_UP recalls first, then QUERIES measured ones
    return latency | {"cpu_ms": spent * 1000 / (QUERIES + WARM_UP), "load": os.getloadavg()[0]}


async def run(rounds: int) -> dict[str, list[dict]]:
    bases = base_sentences(BASES)
    encoder = default_encoder()
    vectors = encoder.embed_sync(bases)
    results: dict[str, list[dict]] = {name: [] for name in VARIANTS}
    for r in range(rounds):
        order = list(VARIANTS.items()) if r % 2 == 0 else list(VARIANTS.items())[::-1]
        for name, env in order:
            row = await measure(env, bases, vectors, encoder.model_name)
            results[name].append(row)
            print(
                f"round {r + 1}, {name}: p50 {row['p50']:.1f} ms, p95 {row['p95']:.1f} ms,"
                f" CPU {row['cpu_ms']:.2f} ms/recall, load {row['load']:.1f}",
                flush=True,
            )
    return results


def render(results: dict[str, list[dict]]) -> str:
    lines = [
        "| variant | runs | recall p50, ms (median) | p95, ms (median) | stack CPU per recall, ms (median) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, rows in results.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("p50", "p95", "cpu_ms")}
        lines.append(
            f"| {name} | {len(rows)} | {med['p50']:.1f} | {med['p95']:.1f} | {med['cpu_ms']:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(asyncio.run(run(int(sys.argv[1]) if len(sys.argv) > 1 else 3))))
