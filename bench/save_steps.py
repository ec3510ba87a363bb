"""When each step of a sequential save happens (issue 25): one client saving distinct notes
in sequence (`wait=indexed`, force), timed by a second client subscribed to every subject on
the bus, which notes when the save's command, its `MemorySaved`, its `MemoryIndexed` and its
audit entry go by. Medians over the saves, in ms from the request, and the save rate; each
variant on a fresh stack, the variants alternating round by round.

    python -m bench.save_steps [--rounds 3] [--saves 300] [LABEL=JSON_ENV ...]

Each variant is a label and the settings of its stack as a JSON object (`main={}`,
`quiet={"MEMHIVE_RUN_SERVICES": "[\\"ingest\\",\\"embed\\"]"}`); a `PYTHONPATH` there runs
another checkout's code. Without variants: this checkout, as `make run` starts it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict

from memhive_contracts import subjects

from bench.corpus import distinct_notes
from bench.running_stack import RunningStack, running_stack

WARM_UP = 30
# The subjects a save's steps go by, in order; the answer is the last step.
STEPS = {
    "command": subjects.SAVE_MEMORY,
    "saved": subjects.MEMORY_SAVED,
    "indexed": subjects.MEMORY_INDEXED,
    "audit": f"{subjects.AUDIT}.save",
}
ANSWER = "answer"


async def timed_saves(stack: RunningStack, saves: int) -> dict[str, float]:
    """Median ms from the request to each step, and `per_s`: the rate after the warm-up."""
    nc = await stack.bus()
    seen: dict[int, dict[str, float]] = defaultdict(dict)
    current: list[int] = []  # the save under way (one client: one at a time)

    async def on_message(msg) -> None:
        if not current:
            return
        for step, prefix in STEPS.items():
            if msg.subject.startswith(prefix + "."):
                seen[current[0]].setdefault(step, time.perf_counter())

    await nc.subscribe(">", cb=on_message)
    requested: dict[int, float] = {}
    try:
        async with stack.client() as client:
            for n, note in enumerate(distinct_notes(saves + WARM_UP)):
                if n == WARM_UP:
                    began = time.perf_counter()
                current[:] = [n]
                requested[n] = time.perf_counter()
                await client.save("fact", note, wait="indexed", force=True)
                seen[n][ANSWER] = time.perf_counter()
            per_s = saves / (time.perf_counter() - began)
        await asyncio.sleep(0.3)  # the last audit entry
    finally:
        await nc.close()
    steps = {}
    for step in [*STEPS, ANSWER]:
        measured = [n for n in requested if n >= WARM_UP and step in seen[n]]
        at = [(seen[n][step] - requested[n]) * 1000 for n in measured]
        steps[step] = statistics.median(at) if at else float("nan")
    return {"per_s": per_s, **steps}


def run(variants: dict[str, dict[str, str]], rounds: int, saves: int) -> dict[str, list[dict]]:
    results: dict[str, list[dict]] = defaultdict(list)
    for round_ in range(rounds):
        for label, env in variants.items():
            with running_stack(env) as stack:
                row = asyncio.run(timed_saves(stack, saves))
            results[label].append(row)
            print(f"round {round_} {label}: {_cells(row)}", flush=True)
    return results


def render(results: dict[str, list[dict]]) -> str:
    columns = ["per_s", *STEPS, ANSWER]
    lines = [
        "| variant | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for label, rows in results.items():
        medians = {c: statistics.median(r[c] for r in rows) for c in columns}
        lines.append(f"| {label} | " + " | ".join(f"{medians[c]:.1f}" for c in columns) + " |")
    return "\n".join(lines)


def _cells(row: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.1f}" for k, v in row.items())


def stack_variants(arguments: list[str]) -> dict[str, dict[str, str]]:
    if not arguments:
        return {"this checkout": {}}
    return {label: json.loads(env) for label, env in (a.split("=", 1) for a in arguments)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--saves", type=int, default=300)
    parser.add_argument("variants", nargs="*")
    options = parser.parse_args()
    print(render(run(stack_variants(options.variants), options.rounds, options.saves)))
