"""A save waiting for `indexed` while other clients save a burst with `wait=accepted`
(issue 25): the burst's rate, the waiting save's latency p50 / p95 and how many of them
landed, each variant on a fresh stack, alternating round by round.

    python -m bench.indexed_during_burst [--rounds 3] [--seconds 8] [--burst-clients 4]
        [LABEL=JSON_ENV ...]

Variants as in `bench.save_steps`; a variant's `MEMHIVE_BENCH_STACK_PYTHON` runs another
checkout's stack (an A/B against a baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.load_latency import fresh_notes, percentiles
from bench.running_stack import RunningStack
from bench.save_steps import stack_variants
from bench.variant_rounds import median_table, on_fresh_stacks


async def indexed_during_burst(stack: RunningStack, seconds: float, burst_clients: int) -> dict:
    async with stack.client(max_connections=burst_clients + 1) as client:
        for body in fresh_notes(50):  # the stack warm, every lane open
            await client.save("observation", body, force=True, wait="indexed")
        notes = iter(fresh_notes(int(seconds * 1000) + 1000))
        stop = time.perf_counter() + seconds
        accepted = 0
        samples: list[float] = []

        async def burst() -> None:
            nonlocal accepted
            while time.perf_counter() < stop:
                await client.save("observation", next(notes), force=True, wait="accepted")
                accepted += 1

        async def waiting() -> None:
            while time.perf_counter() < stop:
                began = time.perf_counter()
                await client.save("observation", next(notes), force=True, wait="indexed")
                samples.append((time.perf_counter() - began) * 1000)

        began = time.perf_counter()
        await asyncio.gather(*(burst() for _ in range(burst_clients)), waiting())
        elapsed = time.perf_counter() - began
    return percentiles(samples) | {"accepted_per_s": accepted / elapsed, "indexed": len(samples)}


def run(variants: dict, rounds: int, seconds: float, burst_clients: int) -> dict[str, list]:
    return on_fresh_stacks(
        variants,
        rounds,
        lambda stack: indexed_during_burst(stack, seconds, burst_clients),
        lambda row: (
            f"accepted {row['accepted_per_s']:.0f}/s, {row['indexed']} indexed saves beside"
            f" them, p50 {row['p50']:.1f} p95 {row['p95']:.1f} ms"
        ),
    )


def render(results: dict[str, list[dict]]) -> str:
    return median_table(
        results,
        [
            ("burst `accepted` (saves/s)", "accepted_per_s", ".0f"),
            ("`indexed` saves beside it", "indexed", ".0f"),
            ("their p50 (ms)", "p50", ".1f"),
            ("p95 (ms)", "p95", ".1f"),
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--burst-clients", type=int, default=4)
    parser.add_argument("variants", nargs="*")
    options = parser.parse_args()
    variants = stack_variants(options.variants)
    print(render(run(variants, options.rounds, options.seconds, options.burst_clients)))
