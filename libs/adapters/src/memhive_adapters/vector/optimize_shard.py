"""Builds the HNSW index of a qdrant-edge shard copy, in a process of its own.

qdrant-edge's `optimize()` holds Python's GIL for its whole run (tens of seconds at 100k
points), so the serving process starts this module on a copy instead and swaps the copy in
when it exits 0 (`EdgeVectorIndex`). It runs at a lower CPU priority than serving.

    python -m memhive_adapters.vector.optimize_shard SHARD_DIR DIMENSIONS [INDEXING_THRESHOLD_KB]
"""

from __future__ import annotations

import os
import sys

import qdrant_edge as qe


def optimize(path: str, dimensions: int, indexing_threshold_kb: int | None) -> bool:
    optimizers = (
        None
        if indexing_threshold_kb is None
        else qe.EdgeOptimizersConfig(indexing_threshold=indexing_threshold_kb)
    )
    config = qe.EdgeConfig(
        vectors=qe.EdgeVectorParams(size=dimensions, distance=qe.Distance.Cosine),
        optimizers=optimizers,
    )
    shard = qe.EdgeShard.load(path, config)
    try:
        return shard.optimize()
    finally:
        shard.flush()
        shard.close()


def main(argv: list[str]) -> int:
    path, dimensions, *threshold = argv
    os.nice(10)  # serving comes first on a small machine
    changed = optimize(path, int(dimensions), int(threshold[0]) if threshold else None)
    print("optimized" if changed else "already optimal")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
