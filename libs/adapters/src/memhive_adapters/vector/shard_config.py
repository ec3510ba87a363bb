"""A lane's qdrant-edge configuration: one place for the serving process and the child that
builds its HNSW (`optimize_shard`), so the two never disagree about a shard.

With `int8`, each built segment keeps an int8 copy of its vectors and scores with it, and
the float vectors stay in their files for rescoring the best candidates: a product's
filtered search scores its points exactly, and that is 2-4x cheaper in int8
(docs/benchmarks.md, "The vector lane in int8"). The appendable segment (points not built
yet) is scored in floats either way. A shard built without it is rebuilt with it by its next
build: qdrant-edge's optimizer re-indexes segments whose configuration differs.

The int8 copy is read through its file (`Memory.Cold`), not loaded onto the heap: the kernel
keeps its pages cached while memory allows and can take them back under pressure, where a
heap copy counts toward an OOM kill. At a swap the old shard and the new one were
both on the heap, ~0.37 GiB each at 1M points. Not `Memory.Cached`, which warms the pages
inside qdrant-edge's load, and the load holds the GIL (every request of the process waits):
`warm_mapped_files` reads them from a worker thread before the load instead
(docs/benchmarks.md, "The int8 copy through its file").
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import qdrant_edge as qe

INT8 = qe.ScalarQuantizationConfig(qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Cold)
# The candidates int8 found are scored again with the float vectors, so a hit's score (what
# the near-duplicate check and the link classifier compare with their floors) is exact.
INT8_SEARCH = qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=True))


def shard_config(
    dimensions: int,
    *,
    int8: bool,
    search_threads: int | None = None,
    optimizers: qe.EdgeOptimizersConfig | None = None,
) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors=qe.EdgeVectorParams(
            size=dimensions,
            distance=qe.Distance.Cosine,
            on_disk=True if int8 else None,
            quantization_config=INT8 if int8 else None,
        ),
        optimizers=optimizers,
        max_search_threads=search_threads,
    )


def search_params(int8: bool) -> qe.SearchParams | None:
    return INT8_SEARCH if int8 else None


# What qdrant-edge reads through its files and searches touch all over: each built segment's
# int8 copy and its numeric payload indexes (payload_indexes.py).
_MAPPED = ("segments/*/vector_storage/quantized.data", "segments/*/payload_index/*-numeric/*")


def warm_mapped_files(shard: Path) -> None:
    """Reads the shard's int8 copies and numeric indexes once, so the kernel holds them in its
    cache before the first searches (after a restart they would otherwise fault them in from
    disk, page by page). Called from a worker thread: a read releases the GIL, qdrant-edge's
    load does not. (`posix_fadvise(WILLNEED)` would not wait, but read ahead only the first
    8 MiB here.)"""
    chunk = bytearray(1 << 20)
    for pattern in _MAPPED:
        for data in shard.glob(pattern):
            with contextlib.suppress(OSError), open(data, "rb", buffering=0) as file:
                while file.readinto(chunk):
                    pass
