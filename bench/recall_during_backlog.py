"""Recall while embed works through a backlog (issue 25): 16 clients save notes with
`wait=accepted` (answered before their vector), then one client recalls while embed embeds
them. p50 / p95 of those recalls, each variant on a fresh stack, alternating round by round.

    python -m bench.recall_during_backlog [--rounds 3] [--saves 800] [--recalls 150]
        [LABEL=JSON_ENV ...]

Variants as in `bench.save_steps` (a `PYTHONPATH` there runs another checkout's code).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.load_latency import fresh_notes, percentiles
from bench.running_stack import RunningStack
from bench.save_steps import stack_variants
from bench.variant_rounds import median_table, on_fresh_stacks

CLIENTS = 16
QUESTIONS = ("who ordered the roof gutters", "when is the deploy", "what does Kofi prefer")


async def recalls_during_backlog(stack: RunningStack, saves: int, recalls: int) -> dict:
    async with stack.client(max_connections=CLIENTS) as client:
        for body in fresh_notes(20):  # the stack warm, every lane open
            await client.save("observation", body, force=True, wait="indexed")
        queue: asyncio.Queue[str] = asyncio.Queue()
        for body in fresh_notes(saves):
            queue.put_nowait(body)

        async def saver() -> None:
            while not queue.empty():
                await client.save("observation", queue.get_nowait(), force=True, wait="accepted")

        await asyncio.gather(*(saver() for _ in range(CLIENTS)))
        samples = []
        for n in range(recalls):
            began = time.perf_counter()
            await client.recall(QUESTIONS[n % len(QUESTIONS)], max_results=5)
            samples.append((time.perf_counter() - began) * 1000)
    return percentiles(samples)


def run(variants: dict, rounds: int, saves: int, recalls: int) -> dict[str, list[dict]]:
    return on_fresh_stacks(
        variants,
        rounds,
        lambda stack: recalls_during_backlog(stack, saves, recalls),
        lambda row: f"p50 {row['p50']:.1f} p95 {row['p95']:.1f}",
    )


def render(results: dict[str, list[dict]]) -> str:
    return median_table(
        results, [("recall p50 (ms)", "p50", ".1f"), ("recall p95 (ms)", "p95", ".1f")]
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--saves", type=int, default=800)
    parser.add_argument("--recalls", type=int, default=150)
    parser.add_argument("variants", nargs="*")
    options = parser.parse_args()
    results = run(stack_variants(options.variants), options.rounds, options.saves, options.recalls)
    print(render(results))
