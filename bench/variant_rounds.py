"""Variants of the stack measured round by round, each on a fresh `memhive run`, and their
medians as a Markdown table (the A/B benches: `recall_during_backlog`,
`indexed_during_burst`)."""

from __future__ import annotations

import asyncio
import statistics
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence

from bench.running_stack import RunningStack, running_stack

# A column: its header, the row's key, and the format of its median.
Column = tuple[str, str, str]


def on_fresh_stacks(
    variants: dict[str, dict[str, str]],
    rounds: int,
    measure: Callable[[RunningStack], Awaitable[dict]],
    describe: Callable[[dict], str],
) -> dict[str, list[dict]]:
    """Each round measures every variant in turn, each on a stack of its own settings."""
    results: dict[str, list[dict]] = defaultdict(list)
    for round_ in range(rounds):
        for label, env in variants.items():
            with running_stack(env) as stack:
                row = asyncio.run(measure(stack))
            results[label].append(row)
            print(f"round {round_} {label}: {describe(row)}", flush=True)
    return results


def median_table(results: dict[str, list[dict]], columns: Sequence[Column]) -> str:
    lines = [
        "| variant | " + " | ".join(header for header, _, _ in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for label, rows in results.items():
        cells = [format(statistics.median(r[key] for r in rows), f) for _, key, f in columns]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
