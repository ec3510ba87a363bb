"""memhive beside mem0, measured in one run: the same LoCoMo turns into the same scopes,
the same questions, phase by phase in turn (memhive, then mem0), on this machine.

    .venv/bin/python -m bench.peer_comparison        (or `make bench PEERS=mem0`)

Phases, each for both systems before the next:
1. sequential adds: the first SEQUENTIAL_ROUNDS x SEQUENTIAL turns from one client
   (memhive: a REST save with `wait=indexed`, as bench.load_latency's sequential saves;
   mem0: `add`, `infer=False`), in rounds of SEQUENTIAL turns, the two taking turns round
   by round: each side's median rate and the median of the rounds' ratios (either side's
   rate moves by a fifth from round to round on this machine);
2. 16-client adds: the rest of the turns from 16 clients at once;
3. filler up to each size in SIZES (generated sentences in 20 other scopes: memhive over the
   bus as a hook with its own vectors would, mem0 straight into its vector store; neither
   measured), then every scored question asked in its conversation's scope (10 results):
   latency p50/p95, and recall@5 of the gold turns as a check that both found them.

Scopes: a conversation is a product scope in memhive (`product_id`) and a user in mem0
(`user_id`). mem0 runs in its own virtualenv (bench/peers/mem0_driver.py); without it this
section says how to make it and measures nothing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from memhive_client import AsyncMemhiveClient

from bench import locomo
from bench.corpus import base_sentences, default_encoder
from bench.load_latency import bulk_load, percentiles, wait_for_hnsw_builds
from bench.running_stack import RunningStack, running_stack

ROOT = Path(__file__).resolve().parents[1]
MEM0_PYTHON = ROOT / ".tools" / "peers" / "mem0" / "bin" / "python"
DRIVER = Path(__file__).with_name("peers") / "mem0_driver.py"
SEQUENTIAL = 200
SEQUENTIAL_ROUNDS = 3
CLIENTS = 16
SIZES = (5_000, 20_000)
BASES = 2000
TOP_K = 10


def turns() -> list[dict]:
    return [
        t
        for c in locomo.conversations()
        for t in locomo._jsonl(locomo.LOCOMO_DIR / f"{c}.memories.jsonl")
    ]


def questions() -> list[dict]:
    """The scored questions bench.locomo asks (not adversarial, with gold evidence)."""
    return [
        q | {"conversation": c}
        for c in locomo.conversations()
        for q in locomo._jsonl(locomo.LOCOMO_DIR / f"{c}.queries.jsonl")
        if not q["adversarial"] and q["evidence"]
    ]


def mem0_item(turn: dict) -> dict:
    return {"text": locomo.turn_text(turn), "user_id": turn["conversation"], "ref": turn["id"]}


def recall_at_5(found: list[list[str]], asked: list[dict]) -> float:
    scores = [
        len(set(q["evidence"]) & set(refs[:5])) / len(q["evidence"])
        for refs, q in zip(found, asked, strict=True)
    ]
    return sum(scores) / len(scores) if scores else 0.0


def ratio(ours: float, theirs: float) -> float:
    return ours / theirs if theirs else float("nan")


class Mem0:
    """The driver in the peer's virtualenv, one JSON line each way per request."""

    def __init__(self, directory: Path) -> None:
        self._process = subprocess.Popen(
            [str(MEM0_PYTHON), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.load_s = self.ask("open", dir=str(directory))["load_s"]

    def ask(self, op: str, **fields) -> dict:
        self._process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the mem0 driver exited (run it by hand to see why)")
        return json.loads(line)

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=60)


async def memhive_adds(client: AsyncMemhiveClient, batch: list[dict], clients: int) -> float:
    queue: asyncio.Queue[dict] = asyncio.Queue()
    for turn in batch:
        queue.put_nowait(turn)

    async def worker() -> None:
        while not queue.empty():
            turn = queue.get_nowait()
            await client.save(
                "event",
                locomo.turn_text(turn),
                wait="indexed",
                product_id=turn["conversation"],
                source_ref=turn["id"],
                occurred_at=datetime.fromisoformat(turn["timestamp_iso"]).replace(tzinfo=UTC),
                force=True,
            )

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return len(batch) / (time.perf_counter() - began)


async def sequential_rounds(client: AsyncMemhiveClient, mem0: Mem0, turns_: list[dict]) -> dict:
    """Rounds of SEQUENTIAL turns, memhive then mem0 in each: medians over the rounds."""
    rounds = []
    for start in range(0, len(turns_), SEQUENTIAL):
        batch = turns_[start : start + SEQUENTIAL]
        ours = await memhive_adds(client, batch, 1)
        theirs = mem0.ask("add", items=[mem0_item(t) for t in batch], clients=1)["per_s"]
        rounds.append({"memhive": ours, "mem0": theirs})
    return {
        "memhive": statistics.median(r["memhive"] for r in rounds),
        "mem0": statistics.median(r["mem0"] for r in rounds),
        "ratio": statistics.median(ratio(r["memhive"], r["mem0"]) for r in rounds),
        "rounds": rounds,
    }


async def memhive_search(client: AsyncMemhiveClient, asked: list[dict]) -> dict:
    samples, found = [], []
    for q in asked:
        began = time.perf_counter()
        hits = await client.recall(q["question"], product_id=q["conversation"], max_results=TOP_K)
        samples.append((time.perf_counter() - began) * 1000)
        found.append([hit.source_ref for hit in hits])
    return percentiles(samples) | {"refs": found}


async def compare(stack: RunningStack, mem0: Mem0) -> dict:
    loaded, asked = turns(), questions()
    bases = base_sentences(BASES)
    encoder = default_encoder()
    vectors = encoder.embed_sync(bases)
    report: dict = {"mem0_load_s": mem0.load_s, "sizes": {}}
    async with stack.client(max_connections=CLIENTS) as client:
        first, rest = (
            loaded[: SEQUENTIAL * SEQUENTIAL_ROUNDS],
            loaded[SEQUENTIAL * SEQUENTIAL_ROUNDS :],
        )
        report["sequential"] = await sequential_rounds(client, mem0, first)
        _progress("sequential", report["sequential"])
        report["concurrent"] = {
            "memhive": await memhive_adds(client, rest, CLIENTS),
            "mem0": mem0.ask("add", items=[mem0_item(t) for t in rest], clients=CLIENTS)["per_s"],
        }
        _progress("concurrent", report["concurrent"])
        count = len(loaded)
        for size in SIZES:
            await bulk_load(stack, size - count, count, bases, vectors, encoder.model_name)
            await wait_for_hnsw_builds(stack)
            mem0.ask("fill", bases=bases, start=count, count=size - count)
            count = size
            ours = await memhive_search(client, asked)
            queries = [{"text": q["question"], "user_id": q["conversation"]} for q in asked]
            theirs = mem0.ask("search", queries=queries, top_k=TOP_K)
            report["sizes"][size] = {
                name: {k: v for k, v in row.items() if k != "refs"}
                | {"r5": recall_at_5(row["refs"], asked)}
                for name, row in (("memhive", ours), ("mem0", theirs))
            }
            _progress(f"search at {size}", report["sizes"][size])
    return report


def _progress(phase: str, figures: dict) -> None:
    print(f"{phase}: {json.dumps(figures)}", file=sys.stderr, flush=True)


def render(report: dict) -> str:
    lines = [
        "| figure | memhive | mem0 | memhive ÷ mem0 |",
        "|---|---:|---:|---:|",
    ]
    sequential = report["sequential"]
    lines.append(
        f"| adds/s, 1 client in sequence (median of {len(sequential['rounds'])} rounds; "
        f"ratio: the rounds' median) | {sequential['memhive']:.1f} | {sequential['mem0']:.1f} | "
        f"{sequential['ratio']:.2f} |"
    )
    ours, theirs = report["concurrent"]["memhive"], report["concurrent"]["mem0"]
    lines.append(f"| adds/s, 16 clients | {ours:.1f} | {theirs:.1f} | {ratio(ours, theirs):.2f} |")
    for size, row in report["sizes"].items():
        for p in ("p50", "p95"):
            ours, theirs = row["memhive"][p], row["mem0"][p]
            lines.append(
                f"| search {p} at {size:,} memories (ms) | {ours:.1f} | {theirs:.1f} | "
                f"{ratio(ours, theirs):.2f} |"
            )
        ours, theirs = row["memhive"]["r5"], row["mem0"]["r5"]
        lines.append(f"| recall@5 at {size:,} | {ours:.3f} | {theirs:.3f} | |")
    lines.append("")
    by_round = ", ".join(
        f"{r['memhive']:.1f} / {r['mem0']:.1f}" for r in report["sequential"]["rounds"]
    )
    lines.append(f"Sequential adds by round, memhive / mem0 (per s): {by_round}.")
    lines.append(
        f"Searches: {report['sizes'][SIZES[0]]['memhive']['n']} LoCoMo questions per size; "
        f"mem0 built its Memory in {report['mem0_load_s']:.1f} s. Below 1 is memhive "
        "slower for adds, faster for search latencies."
    )
    return "\n".join(lines)


def missing_peer() -> str | None:
    if MEM0_PYTHON.exists():
        return None
    return (
        f"mem0 is not measured: its virtualenv ({MEM0_PYTHON.parent.parent}) is missing; "
        "`make bench PEERS=mem0` makes it."
    )


async def section(stack: RunningStack) -> str:
    absent = missing_peer()
    if absent is not None:
        return absent
    with tempfile.TemporaryDirectory(prefix="memhive-bench-mem0-") as directory:
        mem0 = Mem0(Path(directory))
        try:
            return render(await compare(stack, mem0))
        finally:
            mem0.close()


if __name__ == "__main__":
    with running_stack() as stack:
        print(asyncio.run(section(stack)))
