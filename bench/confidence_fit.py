"""How recall's `confidence` was calibrated: the default ranking's top 10 for every LoCoMo
question (in process, bench.quality_study's lanes), each result labelled by the gold
evidence, and a logistic regression of that label on the result's cosine similarity and
query coverage (`memhive_domain.confidence`).

    python -m bench.confidence_fit

Prints the fitted constants, how well they are calibrated (predicted against observed
share of evidence, by bins) and what each `min_confidence` would cost recall@5.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import numpy as np
from memhive_domain import confidence as model
from memhive_domain.fusion import fuse_relative_scores
from memhive_domain.neighbours import DEFAULT_NEIGHBOUR_SHARE
from memhive_domain.query_time import DEFAULT_TIME_BOOST, times_named
from memhive_domain.ranking import in_context

from bench.quality_study import NOW, Question, Study, build

WEIGHTS = {"vector": 1.0, "lexical": 3.0}  # the default ranking (docs/architecture.md)
FLOORS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2)


def ranked(q: Question, study: Study) -> list[tuple[str, float, float]]:
    """(memory id, similarity, coverage) of the default ranking's top 10."""
    fused = in_context(
        fuse_relative_scores(q.lanes, weights=WEIGHTS),
        study.memories,
        named_times=[n.range for n in times_named(q.text, NOW)],
        neighbour_share=DEFAULT_NEIGHBOUR_SHARE,
        time_boost=DEFAULT_TIME_BOOST,
    )[:10]
    cosine = dict(q.lanes["vector"])
    floor = min(cosine.values(), default=0.0)
    return [
        (
            h.memory_id,
            cosine.get(h.memory_id, floor),
            model.query_coverage(q.text, study.memories[h.memory_id].body),
        )
        for h in fused
    ]


def fit(x: np.ndarray, y: np.ndarray, rounds: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method (with a whisper of L2 for stability)."""
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-design @ w))
        gradient = design.T @ (y - p) - 1e-3 * w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + 1e-3 * np.eye(len(w))
        w += np.linalg.solve(hessian, gradient)
    return w


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        study = await build(Path(tmp))
        rows = [(q, ranked(q, study)) for q in study.questions]
        await study.vector.close()
        await study.lexical.close()
    x = np.array([(s, c) for _, results in rows for _, s, c in results])
    y = np.array([float(i in q.gold) for q, results in rows for i, _, _ in results])
    w = fit(x, y)
    print(f"INTERCEPT = {w[0]:.2f}, SIMILARITY_WEIGHT = {w[1]:.2f}, COVERAGE_WEIGHT = {w[2]:.2f}")
    print(f"({len(y)} results of {len(rows)} questions, {int(y.sum())} of them evidence)")
    predicted = np.array([model.confidence(s, c) for s, c in x])
    print("\n| confidence (model in the domain) | results | mean predicted | share evidence |")
    print("|---|---:|---:|---:|")
    for low, high in ((0, 0.05), (0.05, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.5), (0.5, 1.01)):
        inside = (predicted >= low) & (predicted < high)
        if inside.any():
            print(
                f"| {low:.2f}-{min(high, 1):.2f} | {inside.sum()} | "
                f"{predicted[inside].mean():.3f} | {y[inside].mean():.3f} |"
            )
    print("\n| min_confidence | LoCoMo R@5 | questions with no result |")
    print("|---:|---:|---:|")
    for floor in FLOORS:
        r5, empty = [], 0
        for q, results in rows:
            kept = [i for i, s, c in results if model.confidence(s, c) >= floor][:5]
            empty += not kept
            r5.append(len(q.gold & set(kept)) / len(q.gold))
        print(f"| {floor:.2f} | {sum(r5) / len(r5):.3f} | {empty} |")


if __name__ == "__main__":
    asyncio.run(main())
