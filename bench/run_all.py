"""`make bench`: every benchmark on fresh embedded stacks, written into docs/benchmarks.md
(`report_file`: only the sections it measures are rewritten; notes and write-ups stay).

Each section starts its own `memhive run` in a temporary directory, so figures do not
depend on one another. Figures are medians and 95th percentiles measured from a client
on the same machine; nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bench import (
    cost_accounting,
    load_latency,
    locomo,
    peer_comparison,
    reindex,
    report_file,
    supersession,
    upstream,
)
from bench.running_stack import running_stack

OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SIZES = tuple(int(s) for s in os.environ.get("MEMHIVE_BENCH_SIZES", "10000,100000").split(","))
if "--size" in sys.argv:  # `make bench SIZE=1000000`: one more, larger store in the same run
    SIZES = tuple(sorted({*SIZES, int(sys.argv[sys.argv.index("--size") + 1])}))
# `make bench PEERS=mem0`: other memory systems measured beside memhive in the same run.
PEERS = sys.argv[sys.argv.index("--peers") + 1].split(",") if "--peers" in sys.argv else []


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    return f"{os.cpu_count()} × {cpu}, {memory_gib:.0f} GiB, Python {platform.python_version()}, commit {commit}"


def section(title: str, body: Callable[[], str]) -> str:
    began = time.perf_counter()
    print(f"== {title} ...", flush=True)
    text = body()
    print(text, flush=True)
    return f"## {title}\n\n{text}\n\n(measured in {time.perf_counter() - began:.0f} s)\n"


def load_and_latency() -> str:
    # Every service on, as a user runs it; recall is measured once every consumer caught up.
    with running_stack() as stack:
        return load_latency.render(asyncio.run(load_latency.run(stack, SIZES)))


def retrieval_quality() -> str:
    with running_stack() as stack:
        return locomo.render(asyncio.run(locomo.run_locomo(stack)))


def on_fresh_stack(run: Callable, env: dict[str, str] | None = None) -> Callable[[], str]:
    """A section whose `run(stack) -> markdown` gets a fresh `memhive run` of its own."""

    def body() -> str:
        with running_stack(env) as stack:
            return asyncio.run(run(stack))

    return body


SECTIONS: list[tuple[str, Callable[[], str]]] = [
    ("Latency, throughput and memory", load_and_latency),
    (
        "Where the CPU goes: a recall and a save, process by process",
        on_fresh_stack(cost_accounting.section),
    ),
    ("Retrieval quality: LoCoMo (public split)", retrieval_quality),
    ("Supersession: stale facts never without their successor", on_fresh_stack(supersession.run)),
    (
        "Upstream events end to end",
        on_fresh_stack(upstream.run, {"MEMHIVE_RUN_SERVICES": '["ingest","embed"]'}),
    ),
    (
        "Reindex: rate and recall during a rebuild",
        on_fresh_stack(reindex.run, {"MEMHIVE_RUN_SERVICES": '["ingest","embed"]'}),
    ),
]


if "mem0" in PEERS:
    SECTIONS.append(("memhive beside mem0 (issue 25)", on_fresh_stack(peer_comparison.section)))


def main() -> None:
    header = (
        "# memhive benchmarks\n\n"
        f"`make bench` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: {machine()}.\n"
        "Embedded mode (`memhive run`), measured through the HTTP gateway from a client on the same machine.\n"
    )
    locomo.conversations()  # a missing split stops the run now, not after the first sections
    measured = [(title, section(title, body)) for title, body in SECTIONS]
    before = OUTPUT.read_text() if OUTPUT.exists() else ""
    OUTPUT.write_text(report_file.updated(before, header, measured))
    print(f"written to {OUTPUT} (its other sections and notes kept)")


if __name__ == "__main__":
    main()
