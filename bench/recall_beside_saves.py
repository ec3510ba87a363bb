"""Recall beside a burst of saves: `--savers` clients save notes with `wait=indexed` for as
long as one other client recalls `--recalls` times. p50 / p95 of those recalls and the
saves' rate meanwhile, each variant on a fresh stack, alternating round by round.

    python -m bench.recall_beside_saves [--rounds 3] [--savers 64] [--recalls 150]
        [LABEL=JSON_ENV ...]

Variants as in `bench.save_steps` (`MEMHIVE_BENCH_STACK_PYTHON` there runs another
checkout's stack; `{"MEMHIVE_EMBEDDING__CALLERS_NICENESS": "0"}` the passes at the loop's
priority).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.corpus import base_sentences
from bench.load_latency import fresh_notes, percentiles
from bench.recall_during_backlog import QUESTIONS
from bench.running_stack import RunningStack
from bench.save_steps import stack_variants
from bench.variant_rounds import median_table, on_fresh_stacks

WARM_UP = 10


async def recalls_beside_saves(stack: RunningStack, savers: int, recalls: int) -> dict:
    async with stack.client() as asker, stack.client(max_connections=savers) as client:
        for body in base_sentences(100):  # something to find, every lane open
            await asker.save("observation", body, force=True, wait="indexed")
        for n in range(WARM_UP):
            await asker.recall(QUESTIONS[n % len(QUESTIONS)], max_results=5)
        bodies, done, saved = iter(fresh_notes(200_000)), asyncio.Event(), []

        async def saver() -> None:
            while not done.is_set():
                await client.save("event", next(bodies), force=True, wait="indexed")
                saved.append(time.perf_counter())

        savers_running = [asyncio.create_task(saver()) for _ in range(savers)]
        await asyncio.sleep(2)  # the burst under way
        began, samples = time.perf_counter(), []
        for n in range(recalls):
            asked = time.perf_counter()
            await asker.recall(QUESTIONS[n % len(QUESTIONS)], max_results=5)
            samples.append((time.perf_counter() - asked) * 1000)
        ended = time.perf_counter()
        done.set()
        await asyncio.gather(*savers_running)
    rate = sum(began <= t <= ended for t in saved) / (ended - began)
    return percentiles(samples) | {"saves_per_s": rate}


def run(variants: dict, rounds: int, savers: int, recalls: int) -> dict[str, list[dict]]:
    return on_fresh_stacks(
        variants,
        rounds,
        lambda stack: recalls_beside_saves(stack, savers, recalls),
        lambda row: f"p50 {row['p50']:.1f} p95 {row['p95']:.1f} saves/s {row['saves_per_s']:.0f}",
    )


def render(results: dict[str, list[dict]]) -> str:
    return median_table(
        results,
        [
            ("recall p50 (ms)", "p50", ".1f"),
            ("recall p95 (ms)", "p95", ".1f"),
            ("saves/s meanwhile", "saves_per_s", ".0f"),
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--savers", type=int, default=64)
    parser.add_argument("--recalls", type=int, default=150)
    parser.add_argument("variants", nargs="*")
    options = parser.parse_args()
    results = run(stack_variants(options.variants), options.rounds, options.savers, options.recalls)
    print(render(results))
