"""Lexical lane quality on LoCoMo: recall@5/@10 per category, one row per tantivy analyzer.

    python -m bench.lane_quality

Each turn is indexed as "{speaker}: {text}" (+ " [image: {caption}]"), each conversation
in its own product scope, into a temporary TantivyLexicalIndex; each scored question
(non-adversarial, with evidence) is searched in its conversation's scope. The data is
read from ../shared/bench/locomo at run time and never copied into the repo.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from memhive_adapters.lexical.analyzers import ANALYZERS, DEFAULT_ANALYZER
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source

from bench.locomo import LOCOMO_DIR, _jsonl, turn_text

WORKSPACE = "locomo"
CUTS = (5, 10)
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain")
EPOCH = datetime(2023, 1, 1, tzinfo=UTC)


def memory_of(turn: dict) -> Memory:
    return Memory(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, turn["id"])),
        workspace_id=WORKSPACE,
        kind=MemoryKind.EVENT,
        body=turn_text(turn),
        importance=0.5,
        pinned=False,
        tags=(),
        scope=Scope.PRODUCT,
        product_id=turn["conversation"],
        visibility=Visibility.PRIVATE,
        source=Source.AGENT,
        source_ref=turn["id"],
        created_by="bench",
        expires_at=None,
        created_at=EPOCH,
        updated_at=EPOCH,
    )


def scored_questions(conversation: str) -> list[dict]:
    questions = _jsonl(LOCOMO_DIR / f"{conversation}.queries.jsonl")
    return [q for q in questions if not q["adversarial"] and q["evidence"]]


async def evaluate(analyzer: str, conversations: Sequence[str]) -> dict[str, dict[int, float]]:
    """Mean recall@k per category (and "all"), questions pooled across conversations."""
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyLexicalIndex(Path(folder), analyzer=analyzer)
        memories = [memory_of(t) for c in conversations for t in _jsonl(_turns(c))]
        turn_of = {m.id: m.source_ref for m in memories}
        await index.upsert(memories)
        recalls: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        for conversation in conversations:
            scope = MemoryFilter(WORKSPACE, scope=Scope.PRODUCT, product_id=conversation)
            for question in scored_questions(conversation):
                hits = await index.search(question["question"], scope, max(CUTS))
                ranked = [turn_of[h.memory_id] for h in hits]
                _record(recalls, question, ranked)
        await index.close()
    return {cat: {k: sum(v) / len(v) for k, v in by_k.items()} for cat, by_k in recalls.items()}


def _turns(conversation: str) -> Path:
    return LOCOMO_DIR / f"{conversation}.memories.jsonl"


def _record(recalls: dict, question: dict, ranked: list[str]) -> None:
    gold = set(question["evidence"])
    for k in CUTS:
        recall = len(gold & set(ranked[:k])) / len(gold)
        recalls[question["category_name"]][k].append(recall)
        recalls["all"][k].append(recall)


def _row(name: str, result: dict[str, dict[int, float]]) -> str:
    cells = [f"{result[c][5]:.3f}/{result[c][10]:.3f}" for c in ("all", *CATEGORIES)]
    marker = " (default)" if name == DEFAULT_ANALYZER else ""
    return f"| {name}{marker} | " + " | ".join(cells) + " |"


async def main() -> None:
    conversations = sorted(p.name.split(".")[0] for p in LOCOMO_DIR.glob("*.memories.jsonl"))
    print(f"LoCoMo lexical lane, {len(conversations)} conversations; cells are R@5/R@10")
    print("| analyzer | all | " + " | ".join(CATEGORIES) + " |")
    print("|---|" + "---|" * (1 + len(CATEGORIES)))
    for name in ANALYZERS:
        print(_row(name, await evaluate(name, conversations)), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
