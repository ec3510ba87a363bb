"""Recall through REST at 10k, two stacks side by side (issue 25): each a fresh `memhive
run` bulk loaded with `make bench`'s 10k corpus, then asked `bench.load_latency`'s recalls
in alternating rounds (A, B, B, A, ...), so both meet the same neighbours' load. Per round:
wall p50/p95 and CPU per recall (user + system from /proc) of the memhive process, its
children (ingest, nats-server) and the client; medians over rounds and B / A ratios.

    MEMHIVE_BENCH_A_PYTHON=/base/.venv/bin/python python -m bench.recall_ab [rounds]

A and B are interpreters (another checkout's `.venv/bin/python`; unset: this one), and
`MEMHIVE_BENCH_A_ENV` / `..._B_ENV` optional `NAME=value,NAME=value` settings for each.
`--profile SECONDS` runs py-spy (`MEMHIVE_BENCH_PY_SPY`, default `py-spy`) over B's
memhive process while B recalls, and writes its flame graph beside the working directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator

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
from bench.process_cpu import cpu_by_process
from bench.running_stack import RunningStack, running_stack

SIZE = 10_000
STACKS = ("A", "B")


def stack_settings(name: str) -> dict[str, str]:
    pairs = os.environ.get(f"MEMHIVE_BENCH_{name}_ENV", "")
    env = dict(p.split("=", 1) for p in pairs.split(",") if p)
    python = os.environ.get(f"MEMHIVE_BENCH_{name}_PYTHON")
    return env | ({"MEMHIVE_BENCH_STACK_PYTHON": python} if python else {})


@contextlib.contextmanager
def stack_with(settings: dict[str, str]) -> Iterator[RunningStack]:
    """`running_stack` reads the stack's interpreter from this process's environment."""
    python = settings.pop("MEMHIVE_BENCH_STACK_PYTHON", None)
    saved = os.environ.get("MEMHIVE_BENCH_STACK_PYTHON")
    os.environ.pop("MEMHIVE_BENCH_STACK_PYTHON", None)
    if python:
        os.environ["MEMHIVE_BENCH_STACK_PYTHON"] = python
    try:
        with running_stack(settings) as stack:
            yield stack
    finally:
        os.environ.pop("MEMHIVE_BENCH_STACK_PYTHON", None)
        if saved:
            os.environ["MEMHIVE_BENCH_STACK_PYTHON"] = saved


async def one_round(stack: RunningStack, bases: list[str]) -> dict:
    before, client_before = cpu_by_process(stack.pid), cpu_seconds(os.getpid())
    async with stack.client() as client:
        latency = await recall_latency(client, bases)
    spent = cpu_by_process(stack.pid)
    spent.subtract(before)
    asked = QUERIES + WARM_UP
    row = {f"cpu {name}": s * 1000 / asked for name, s in spent.items()}
    row["cpu client"] = (cpu_seconds(os.getpid()) - client_before) * 1000 / asked
    row["cpu stack"] = sum(s for s in spent.values()) * 1000 / asked
    return latency | row | {"load": os.getloadavg()[0]}


def profile(pid: int, seconds: int) -> subprocess.Popen:
    spy = os.environ.get("MEMHIVE_BENCH_PY_SPY", "py-spy")
    out = f"recall-profile-{pid}.txt"
    command = [spy, "record", "-p", str(pid), "-d", str(seconds), "-r", "200", "-o", out]
    return subprocess.Popen([*command, "--format", "raw", "--threads"])


async def run(rounds: int, profile_s: int | None) -> dict[str, list[dict]]:
    bases = base_sentences(BASES)
    encoder = default_encoder()
    vectors = encoder.embed_sync(bases)
    results: dict[str, list[dict]] = {name: [] for name in STACKS}
    with contextlib.ExitStack() as running:
        stacks = {}
        for name in STACKS if rounds else ("B",):
            stacks[name] = running.enter_context(stack_with(stack_settings(name)))
            await bulk_load(stacks[name], SIZE, 0, bases, vectors, encoder.model_name)
            await wait_for_hnsw_builds(stacks[name])
        if profile_s:
            spy = profile(stacks["B"].pid, profile_s)
            while spy.poll() is None:
                await one_round(stacks["B"], bases)
        for r in range(rounds):
            for name in STACKS if r % 2 == 0 else STACKS[::-1]:
                row = await one_round(stacks[name], bases)
                results[name].append(row)
                print(f"round {r + 1} {name}: " + _line(row), flush=True)
    return results if rounds else {}


def _line(row: dict) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in row.items() if k != "n")


def render(results: dict[str, list[dict]]) -> str:
    if not results:
        return "(profile only)"
    keys = [k for k in results["A"][0] if k not in ("n", "load")]
    lines = ["| figure (median of rounds) | A | B | B / A |", "|---|---:|---:|---:|"]
    for key in keys:
        a, b = (statistics.median(r.get(key, 0.0) for r in results[s]) for s in STACKS)
        lines.append(f"| {key} | {a:.2f} | {b:.2f} | {b / a if a else float('nan'):.3f} |")
    return "\n".join(lines)


def arguments(argv: list[str]) -> tuple[int, int | None]:
    profile_s = None
    if "--profile" in argv:
        at = argv.index("--profile")
        profile_s = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    return (int(argv[0]) if argv else 6), profile_s


if __name__ == "__main__":
    print(render(asyncio.run(run(*arguments(sys.argv[1:])))))
