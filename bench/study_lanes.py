"""LoCoMo's two lanes built once, in process, for the ranking studies (bench.quality_study,
recall_variants, expansion_variants, rerank_study, confidence_fit): each question's lane
candidates are computed with the real adapters (tantivy, qdrant-edge, MiniLM), and a study's
variants re-rank them.

Turns are saved as bench.locomo saves them through the API: `speaker: text [image: ...]`,
occurred_at = the session's timestamp, one product scope per conversation. The turn
vectors are cached under the system's temp dir (never in the repo) so a second run does
not embed the 1451 turns again.
"""

from __future__ import annotations

import hashlib
import tempfile
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
from bench.locomo import LOCOMO_DIR, _jsonl, conversations

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
