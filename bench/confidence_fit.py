"""How recall's `confidence` was calibrated: the default ranking's top 10 for every LoCoMo
question (in process, bench.quality_study's lanes), each result labelled by the gold
evidence, and a logistic regression of that label on the result's cosine similarity and
query coverage (`memhive_domain.confidence`).

    python -m bench.confidence_fit [--encoder all-MiniLM-L6-v2/int8-per-text-v2]

Each encoder has a calibration of its own (`CALIBRATIONS`): the model reads its cosines.
Prints the fitted constants, how well the domain's calibration for that encoder is
calibrated (predicted against observed share of evidence, by bins) and what each
`min_confidence` would cost recall@5.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

import numpy as np
from memhive_adapters.embedding.onnx_minilm import FP32, VARIANTS, OnnxMiniLmEmbedder
from memhive_domain import confidence as model
from memhive_domain.fusion import fuse_relative_scores
from memhive_domain.lane_balance import lane_balance_for
from memhive_domain.query_time import DEFAULT_TIME_BOOST, times_named
from memhive_domain.ranking import in_context

from bench.study_lanes import NOW, LocalEmbedder, Question, Study, build

FLOORS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2)


def ranked(q: Question, study: Study, encoder: str) -> list[tuple[str, float, float]]:
    """(memory id, similarity, coverage) of the default ranking's top 10, with the
    encoder's lane balance (docs/architecture.md)."""
    balance = lane_balance_for(encoder)
    fused = in_context(
        fuse_relative_scores(q.lanes, weights={"vector": 1.0, "lexical": balance.lexical_weight}),
        study.memories,
        named_times=[n.range for n in times_named(q.text, NOW)],
        neighbour_share=balance.neighbour_share,
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


def local_embedder(encoder: str, cache_dir: Path) -> LocalEmbedder | None:
    """None for fp32: quality_study's NumPy reference (onnxruntime's fp32 vectors)."""
    if encoder == FP32.encoder:
        return None
    return OnnxMiniLmEmbedder(cache_dir, threads=1, variant=VARIANTS[encoder])


async def main(encoder: str) -> None:
    calibration = model.calibration_for(encoder)
    with tempfile.TemporaryDirectory() as tmp:
        study = await build(Path(tmp), local_embedder(encoder, Path(tmp) / "models"))
        rows = [(q, ranked(q, study, encoder)) for q in study.questions]
        await study.vector.close()
        await study.lexical.close()
    x = np.array([(s, c) for _, results in rows for _, s, c in results])
    y = np.array([float(i in q.gold) for q, results in rows for i, _, _ in results])
    w = fit(x, y)
    print(f"{encoder}: Calibration({w[0]:.2f}, {w[1]:.2f}, {w[2]:.2f})")
    print(f"({len(y)} results of {len(rows)} questions, {int(y.sum())} of them evidence)")
    print(f"In the domain: {calibration}")
    predicted = np.array([calibration.confidence(s, c) for s, c in x])
    print("\n| confidence (the domain's calibration) | results | mean predicted | share evidence |")
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
            kept = [i for i, s, c in results if calibration.confidence(s, c) >= floor][:5]
            empty += not kept
            r5.append(len(q.gold & set(kept)) / len(q.gold))
        print(f"| {floor:.2f} | {sum(r5) / len(r5):.3f} | {empty} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", choices=sorted(VARIANTS), default=FP32.encoder)
    asyncio.run(main(parser.parse_args().encoder))
