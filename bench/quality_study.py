"""Ranking variants on LoCoMo, scored in process: each question's lane candidates are
computed once with the real adapters (tantivy, qdrant-edge, MiniLM), and every variant
re-ranks them (plus whatever extra lane searches the variant itself needs).

    python -m bench.quality_study

Turns are saved as bench.locomo saves them through the API: `speaker: text [image: ...]`,
occurred_at = the session's timestamp, one product scope per conversation. The turn
vectors are cached under the system's temp dir (never in the repo) so a second run does
not embed the 1451 turns again.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from memhive_adapters.embedding.minilm import MiniLmEmbedder
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Scope

from bench.lane_quality import WORKSPACE, memory_of
from bench.locomo import CATEGORIES, LOCOMO_DIR, _jsonl, conversations

NOW = datetime(2026, 11, 24, tzinfo=UTC)  # "last year" etc. are counted from here
LocalEmbedder = MiniLmEmbedder | OnnxMiniLmEmbedder  # both embed in the calling thread
POOL = 30  # what recall asks each lane for with max_results 10 (3 x limit)
DEEP = 60  # for variants that ask the lanes for more


@dataclass
class Question:
    text: str
    category: str
    gold: frozenset[str]  # memory ids
    scope: MemoryFilter
    vector: list[float]
    deep: dict[str, list[tuple[str, float]]]  # DEEP candidates per lane
    pool: int = POOL

    @property
    def lanes(self) -> dict[str, list[tuple[str, float]]]:
        return {lane: hits[: self.pool] for lane, hits in self.deep.items()}


@dataclass
class Study:
    memories: dict[str, Memory]
    vector: EdgeVectorIndex
    lexical: TantivyLexicalIndex
    embedder: LocalEmbedder
    questions: list[Question]
    workdir: Path  # removed after the run: variants may build indexes of their own there


Variant = Callable[[Question, Study], Awaitable[list[str]]]


def occurred_of(turn: dict) -> datetime:
    return datetime.fromisoformat(turn["timestamp_iso"]).replace(tzinfo=UTC)


def turn_memory(turn: dict) -> Memory:
    return replace(memory_of(turn), occurred_at=occurred_of(turn))


def cached_vectors(embedder: LocalEmbedder, texts: list[str]) -> np.ndarray:
    key = hashlib.sha256("\n".join([embedder.model_name, *texts]).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"memhive-quality-{key}.npy"
    if path.exists():
        return np.load(path)
    vectors = embedder.embed_sync(texts)
    np.save(path, vectors)
    return vectors


async def build(workdir: Path, embedder: LocalEmbedder | None = None) -> Study:
    """`embedder`: fp32 MiniLM (the NumPy reference, the vectors onnxruntime's fp32 gives)
    unless another is named."""
    embedder = embedder or MiniLmEmbedder(threads=1)
    vector = EdgeVectorIndex(workdir / "vector", embedder.dimensions)
    lexical = TantivyLexicalIndex(workdir / "lexical")
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    memories = [turn_memory(t) for t in turns]
    by_ref = {m.source_ref: m.id for m in memories}
    vectors = cached_vectors(embedder, [m.body for m in memories]).tolist()
    await vector.upsert(list(zip(memories, vectors, strict=True)))
    await lexical.upsert(memories)
    raw = [
        q
        for c in conversations()
        for q in _jsonl(LOCOMO_DIR / f"{c}.queries.jsonl")
        if not q["adversarial"] and q["evidence"]
    ]
    question_vectors = cached_vectors(embedder, [q["question"] for q in raw]).tolist()
    questions = []
    for q, qv in zip(raw, question_vectors, strict=True):
        scope = MemoryFilter(WORKSPACE, scope=Scope.PRODUCT, product_id=q["conversation"])
        lanes = {
            "vector": _pairs(await vector.search(qv, scope, DEEP)),
            "lexical": _pairs(await lexical.search(q["question"], scope, DEEP)),
        }
        gold = frozenset(by_ref[e] for e in q["evidence"])
        questions.append(Question(q["question"], q["category_name"], gold, scope, qv, lanes))
    return Study({m.id: m for m in memories}, vector, lexical, embedder, questions, workdir)


def _pairs(hits) -> list[tuple[str, float]]:
    return [(h.memory_id, h.score) for h in hits]


async def score(study: Study, variant: Variant) -> dict[str, dict[str, float]]:
    per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for q in study.questions:
        ranked = await variant(q, study)
        r5 = len(q.gold & set(ranked[:5])) / len(q.gold)
        r10 = len(q.gold & set(ranked[:10])) / len(q.gold)
        per[q.category].append((r5, r10))
    rows = {c: _mean(v) for c, v in per.items()}
    rows["overall"] = _mean([x for v in per.values() for x in v])
    return rows


def _mean(rows: list[tuple[float, float]]) -> dict[str, float]:
    return {"r5": sum(r for r, _ in rows) / len(rows), "r10": sum(r for _, r in rows) / len(rows)}


def render_row(name: str, rows: dict[str, dict[str, float]]) -> str:
    cells = [f"{rows[c]['r5']:.3f}" for c in ("overall", *CATEGORIES)]
    return f"| {name} | " + " | ".join(cells) + f" | {rows['overall']['r10']:.3f} |"


def header() -> str:
    return (
        "| variant | overall | "
        + " | ".join(CATEGORIES)
        + " | R@10 |\n|---|"
        + "---:|" * (len(CATEGORIES) + 2)
    )


async def run(variants: dict[str, Variant]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        study = await build(Path(tmp))
        print(
            f"{len(study.questions)} questions, lanes built in {time.monotonic() - started:.0f} s"
        )
        print(header())
        for name, variant in variants.items():
            print(render_row(name, await score(study, variant)), flush=True)
        await study.vector.close()
        await study.lexical.close()
        for index in study.__dict__.get("analyzers", {}).values():
            await index.close()


def main() -> None:
    from bench.quality_variants import VARIANTS

    asyncio.run(run(VARIANTS))


if __name__ == "__main__":
    main()
