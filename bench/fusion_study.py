"""How the fusion default was chosen: each lane's hits for every LoCoMo question, computed
once with the real adapters, then every fusion variant scored on them (R@5 by category).

`python -m bench.fusion_study`. It measures lanes directly (no HTTP, no importance:
LoCoMo turns are all equally important), so it isolates the fusion step; bench.locomo
measures the product end to end through the REST API.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from memhive_adapters.embedding.minilm import MiniLmEmbedder
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_domain.fusion import FusedHit, fuse_ranked_lists, fuse_relative_scores
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Scope

from bench.lane_quality import WORKSPACE, memory_of
from bench.locomo import CATEGORIES, LOCOMO_DIR, _jsonl, conversations

POOL = 50  # candidates per lane


async def lane_hits(workdir: Path) -> list[dict]:
    embedder = MiniLmEmbedder()
    vector = EdgeVectorIndex(workdir / "vector", embedder.dimensions)
    lexical = TantivyLexicalIndex(workdir / "lexical")
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    memories = [memory_of(t) for t in turns]
    ref_of = {m.id: m.source_ref for m in memories}
    vectors = embedder.embed_sync([m.body for m in memories]).tolist()
    await vector.upsert(list(zip(memories, vectors, strict=True)))
    await lexical.upsert(memories)
    questions = []
    for conversation in conversations():
        for q in _jsonl(LOCOMO_DIR / f"{conversation}.queries.jsonl"):
            if q["adversarial"] or not q["evidence"]:
                continue
            scope = MemoryFilter(WORKSPACE, scope=Scope.PRODUCT, product_id=conversation)
            qv = embedder.embed_sync([q["question"]])[0].tolist()
            lanes = {
                "vector": await vector.search(qv, scope, POOL),
                "lexical": await lexical.search(q["question"], scope, POOL),
            }
            questions.append(
                {
                    "category": q["category_name"],
                    "gold": set(q["evidence"]),
                    "lanes": {
                        k: [(ref_of[h.memory_id], h.score) for h in v] for k, v in lanes.items()
                    },
                }
            )
    await vector.close()
    await lexical.close()
    return questions


def recall_at_5(questions: list[dict], fuse: Callable[[dict], list[FusedHit]]) -> dict[str, float]:
    per: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        top = [h.memory_id for h in fuse(q["lanes"])[:5]]
        per[q["category"]].append(len(q["gold"] & set(top)) / len(q["gold"]))
    rows = {c: sum(v) / len(v) for c, v in per.items()}
    rows["overall"] = sum(sum(v) for v in per.values()) / sum(len(v) for v in per.values())
    return rows


def variants() -> dict[str, Callable[[dict], list[FusedHit]]]:
    def rrf(weights=None, pool=POOL):
        return lambda lanes: fuse_ranked_lists(
            {k: [i for i, _ in v[:pool]] for k, v in lanes.items()}, weights=weights
        )

    def relative(weights=None, pool=POOL):
        return lambda lanes: fuse_relative_scores(
            {k: v[:pool] for k, v in lanes.items()}, weights=weights
        )

    found = {
        "vector only": lambda lanes: fuse_relative_scores({"vector": lanes["vector"]}),
        "lexical only": lambda lanes: fuse_relative_scores({"lexical": lanes["lexical"]}),
    }
    for pool in (18, 30):  # what recall asks each lane for: 3 x max_results (6 default, 10)
        found[f"rrf k=60, equal, pool {pool}"] = rrf(pool=pool)
        for lexical_weight in (1.0, 1.5, 2.0, 3.0):
            found[f"relative score, lexical x{lexical_weight}, pool {pool}"] = relative(
                {"vector": 1.0, "lexical": lexical_weight}, pool
            )
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        questions = asyncio.run(lane_hits(Path(tmp)))
    print(f"| R@5, {len(questions)} questions | overall | " + " | ".join(CATEGORIES) + " |")
    print("|---|---:|" + "---:|" * len(CATEGORIES))
    for name, fuse in variants().items():
        r = recall_at_5(questions, fuse)
        print(
            f"| {name} | {r['overall']:.3f} | "
            + " | ".join(f"{r[c]:.3f}" for c in CATEGORIES)
            + " |"
        )


if __name__ == "__main__":
    main()
