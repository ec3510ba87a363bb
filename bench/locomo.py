"""Retrieval quality on LoCoMo (../shared/bench/locomo), through memhive's own REST API.

Each conversation's turns go into their own product scope; each question is asked in
that scope, and the returned memories' source_ref (the turn id) is scored against the
gold evidence. The data is read from where it lies and never copied into the repo.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from memhive_client import AsyncMemhiveClient
from memhive_query.mcp.tools.recall_memory import DEFAULT_MIN_CONFIDENCE

from bench.running_stack import RunningStack


def _locomo_dir() -> Path:
    """`../shared/bench/locomo` beside the checkout, or MEMHIVE_LOCOMO_DIR (a worktree lies
    one level deeper than the main checkout)."""
    if folder := os.environ.get("MEMHIVE_LOCOMO_DIR"):
        return Path(folder)
    return Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo"


LOCOMO_DIR = _locomo_dir()
MODES = {"fused": None, "vector lane": ["vector"], "lexical lane": ["lexical"]}
# The fused ranking once more with the floor MCP agents get by default, to show what it costs.
MCP_FLOOR = "fused, min_confidence 0.01 (MCP default)"
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain")


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    return text + (f" [image: {turn['image_caption']}]" if turn.get("image_caption") else "")


def conversations() -> list[str]:
    """The split's conversations; none is an error, not a score of zero over no question."""
    found = sorted(
        p.name.removesuffix(".memories.jsonl") for p in LOCOMO_DIR.glob("*.memories.jsonl")
    )
    if not found:
        raise SystemExit(
            f"no LoCoMo conversation (*.memories.jsonl) in {LOCOMO_DIR}: "
            "set MEMHIVE_LOCOMO_DIR to the public split's folder"
        )
    return found


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def index_conversations(client: AsyncMemhiveClient, concurrency: int = 8) -> int:
    gate = asyncio.Semaphore(concurrency)

    async def save(turn: dict) -> None:
        async with gate:
            await client.save(
                "event",
                turn_text(turn),
                wait="indexed",
                product_id=turn["conversation"],
                source_ref=turn["id"],
                # When it was said, as a user would save a dated conversation.
                occurred_at=datetime.fromisoformat(turn["timestamp_iso"]).replace(tzinfo=UTC),
                force=True,
            )

    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    await asyncio.gather(*(save(t) for t in turns))
    return len(turns)


async def evaluate(
    client: AsyncMemhiveClient, lanes: list[str] | None, min_confidence: float | None = None
) -> dict:
    per_category: dict[str, list[dict]] = defaultdict(list)
    per_conversation: dict[str, list[dict]] = defaultdict(list)
    for conversation in conversations():
        for q in _jsonl(LOCOMO_DIR / f"{conversation}.queries.jsonl"):
            if q["adversarial"] or not q["evidence"]:
                continue
            hits = await client.recall(
                q["question"],
                product_id=conversation,
                max_results=10,
                lanes=lanes,
                min_confidence=min_confidence,
            )
            ranked = [hit.source_ref for hit in hits]
            scores = _scores(ranked, set(q["evidence"]))
            per_category[q["category_name"]].append(scores)
            per_conversation[conversation].append(scores)
    summary = _summarise(per_category)
    summary["conversations"] = {
        c: sum(r["r5"] for r in rows) / len(rows) for c, rows in per_conversation.items()
    }
    return summary


def _scores(ranked: list[str], gold: set[str]) -> dict:
    hits = [1 if r in gold else 0 for r in ranked[:10]]
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    first = next((i for i, h in enumerate(hits) if h), None)
    return {
        "r5": len(gold & set(ranked[:5])) / len(gold),
        "r10": len(gold & set(ranked[:10])) / len(gold),
        "ndcg10": sum(h / math.log2(i + 2) for i, h in enumerate(hits)) / ideal,
        "mrr10": 0.0 if first is None else 1 / (first + 1),
    }


def _summarise(per_category: dict[str, list[dict]]) -> dict:
    def mean(rows: list[dict], key: str) -> float:
        return sum(r[key] for r in rows) / len(rows) if rows else 0.0

    everything = [r for rows in per_category.values() for r in rows]
    summary = {"overall": {k: mean(everything, k) for k in ("r5", "r10", "ndcg10", "mrr10")}}
    summary["overall"]["n"] = len(everything)
    for category in CATEGORIES:
        rows = per_category.get(category, [])
        summary[category] = {"r5": mean(rows, "r5"), "r10": mean(rows, "r10"), "n": len(rows)}
    return summary


async def run_locomo(stack: RunningStack) -> dict:
    async with AsyncMemhiveClient(stack.url, stack.token, timeout_s=120) as client:
        count = await index_conversations(client)
        results = {mode: await evaluate(client, lanes) for mode, lanes in MODES.items()}
        results[MCP_FLOOR] = await evaluate(client, None, DEFAULT_MIN_CONFIDENCE)
    return {"memories": count, "results": results}


def render(report: dict) -> str:
    results = report["results"]
    modes = [m for m in (*MODES, MCP_FLOOR) if m in results]
    lines = [
        f"{report['memories']} turns indexed through the REST API, {results['fused']['overall']['n']} scored questions.",
        "",
        "| recall@5 (recall@10) | " + " | ".join(modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for row in ("overall", *CATEGORIES):
        cells = [f"{results[m][row]['r5']:.3f} ({results[m][row]['r10']:.3f})" for m in modes]
        lines.append(f"| {row} (n={results['fused'][row]['n']}) | " + " | ".join(cells) + " |")
    for conversation in results["fused"].get("conversations", {}):
        cells = [f"{results[m]['conversations'][conversation]:.3f}" for m in modes]
        lines.append(f"| {conversation}, recall@5 | " + " | ".join(cells) + " |")
    lines += ["", "| overall | nDCG@10 | MRR@10 |", "|---|---:|---:|"]
    lines += [
        f"| {m} | {results[m]['overall']['ndcg10']:.3f} | {results[m]['overall']['mrr10']:.3f} |"
        for m in modes
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    from bench.running_stack import running_stack

    with running_stack() as stack:
        print(render(asyncio.run(run_locomo(stack))))
