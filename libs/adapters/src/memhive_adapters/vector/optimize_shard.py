"""Builds the HNSW index of a qdrant-edge shard copy, in a process of its own.

qdrant-edge's `optimize()` holds Python's GIL for its whole run (tens of seconds at 100k
points), so the serving process starts this module on a copy instead and swaps the copy in
when it exits 0 (`EdgeVectorIndex`). It runs at a lower CPU priority than serving.

    python -m memhive_adapters.vector.optimize_shard DIR DIMENSIONS int8|float [THRESHOLD_KB]
"""

from __future__ import annotations

import logging
import os
import sys

import qdrant_edge as qe

from memhive_adapters.vector.payload_indexes import ensure_payload_indexes
from memhive_adapters.vector.shard_config import shard_config

# qdrant's merge optimizer otherwise keeps about as many segments as cores, so every build
# re-indexed nearly the whole shard (a minute of CPU by 160k points). Capped segments leave
# full ones alone: a build indexes what came since, 3-5 s per 20k points and flat to 200k,
# for a search over more segments (2.1 against 0.46 ms at 200k; docs/benchmarks.md).
SEGMENTS = 8
MAX_SEGMENT_KB = 500_000


def optimize(path: str, dimensions: int, int8: bool, indexing_threshold_kb: int | None) -> bool:
    config = shard_config(
        dimensions,
        int8=int8,
        optimizers=qe.EdgeOptimizersConfig(
            indexing_threshold=indexing_threshold_kb,
            default_segment_number=SEGMENTS,
            max_segment_size=MAX_SEGMENT_KB,
        ),
    )
    shard = qe.EdgeShard.load(path, config)
    try:
        ensure_payload_indexes(shard)  # a lane an earlier release built moves here
        return shard.optimize()
    finally:
        shard.flush()
        shard.close()


def main(argv: list[str]) -> int:
    path, dimensions, vectors, *threshold = argv
    if vectors not in ("int8", "float"):
        raise SystemExit(f"vectors must be int8 or float, not {vectors!r}")
    os.nice(10)  # serving comes first on a small machine
    # What it logs (an earlier lane's indexes made again) reaches the serving process's log.
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    threshold_kb = int(threshold[0]) if threshold else None
    changed = optimize(path, int(dimensions), vectors == "int8", threshold_kb)
    print("optimized" if changed else "already optimal")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
