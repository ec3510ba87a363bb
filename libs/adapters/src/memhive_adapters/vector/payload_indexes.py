"""The payload indexes of a lane's shard: the fields a search filters on, and where each
index lives.

The numeric fields' indexes are read through their files (`Memory.Cold`); the keywords'
stay on the heap. qdrant-edge's load rebuilds a heap index in memory (B-tree histograms for
numbers, maps for keywords) and holds the GIL while it does, so every request of the process
waits for each swap's load. Measured on a 300k shard: the load 0.54-0.59 s against
1.65-1.76, its anonymous memory +84 MiB against +237, for ~0.2 ms more on a search with a
product and a date range (2.0-2.2 against 1.8-2.0 ms p50). Keywords through their files too
made that search 2.3x slower: they pick a product's points in every filtered search
(docs/benchmarks.md, "Numeric payload indexes through their files").
"""

from __future__ import annotations

import logging
import time

import qdrant_edge as qe

log = logging.getLogger(__name__)

KEYWORD_FIELDS = ("workspace_id", "scope", "product_id", "kind", "tags")
NUMBER_FIELDS: dict[str, qe.IntegerIndexParams | qe.FloatIndexParams] = {
    "public": qe.IntegerIndexParams(memory=qe.Memory.Cold),
    "expires_at": qe.FloatIndexParams(memory=qe.Memory.Cold),
    "created_at": qe.FloatIndexParams(memory=qe.Memory.Cold),
    "occurred_at": qe.FloatIndexParams(memory=qe.Memory.Cold),
}


def ensure_payload_indexes(shard: qe.EdgeShard) -> None:
    """Creates the indexes a shard lacks (a new lane), and makes again those an earlier
    release placed elsewhere. The build child calls it on its copy, so a lane built with its
    numeric indexes on the heap moves at its next build: making them again holds the GIL
    over every segment (7.4 s at 300k points, measured), which would stall a serving
    process. What it made again is logged (the build child's log reaches the lane's)."""
    schema = shard.info().payload_schema
    made = []
    started = time.perf_counter()
    for field in KEYWORD_FIELDS:
        if field not in schema:
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
    for field, params in NUMBER_FIELDS.items():
        held = schema.get(field)
        if held is None or held.params is None or held.params.memory != params.memory:
            shard.update(qe.UpdateOperation.create_field_index(field, params))
            if held is not None:
                made.append(field)
    if made:
        log.info(
            "the indexes of %s made again through their files in %.1f s (%d points)",
            ", ".join(made),
            time.perf_counter() - started,
            shard.info().points_count,
        )
