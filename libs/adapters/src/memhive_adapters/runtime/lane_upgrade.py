"""Embedded lanes of an older layout are rebuilt from the record before they serve.

A new release may store a new field in its lanes (`lane_conditions.LAYOUT`). tantivy cannot
add a field to an index, and older documents would lack it anyway, so the lanes of the
current generation are rebuilt into the next one, from the record, before anything reads
them: no manual step on upgrade. The vectors are copied from the old vector lane (same
model, so nothing is embedded again but memories it lacks), which makes it a matter of
seconds at 100k memories. The pointer moves only once the new generation is complete, so a
crash half-way repeats the upgrade at the next start; the old generation is dropped after.

Server lanes (Qdrant, OpenSearch) are shared by every replica and are upgraded by
`memhive reindex`, as documented for a change of mapping.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from memhive_domain.memory import Memory
from memhive_ports import BackgroundEmbedder, Embedder, VectorIndex

from memhive_adapters.lane_conditions import LAYOUT
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_adapters.runtime.lane_generations import LaneGeneration, LaneGenerations

log = logging.getLogger(__name__)

# Small calls let other passes in between, instead of waiting behind a whole replay batch:
# the indexer's on the backlog worker; a recall's query with an embedder that has none.
EMBED_CHUNK = 8


async def upgrade_embedded_lanes(generations: LaneGenerations, replay: RecordReplay) -> bool:
    """Rebuild the current embedded generation when its layout is older than LAYOUT;
    True when it did. Lanes already current only get their layout recorded."""
    if generations.shared:
        return False
    current = generations.current_spec()
    if current.layout >= LAYOUT:
        generations.record(current)
        return False
    target = replace(generations.next_spec(), layout=LAYOUT)
    log.warning(
        "lanes of layout %d found (this version stores layout %d): rebuilding them from the "
        "record into generation %d before serving",
        current.layout,
        LAYOUT,
        target.number,
    )
    source = generations.build(current)
    built = generations.build(target, source.embedder)
    started = time.monotonic()
    await source.vector.ensure_ready()
    try:
        await built.open()
        copied = await _fill(built, replay, source.vector)
    except BaseException:
        await built.drop()
        raise
    finally:
        await source.vector.close()
    await built.close()
    generations.commit(target)
    generations.sweep()
    log.warning(
        "lanes rebuilt at layout %d: %d memories in %.1f s",
        LAYOUT,
        copied,
        time.monotonic() - started,
    )
    return True


async def _fill(built: LaneGeneration, replay: RecordReplay, source: VectorIndex) -> int:
    done = 0
    async for batch in replay.batches():
        live = [m for m in batch.memories if not m.forgotten]
        if live:
            vectors = await vectors_for(live, built.embedder, source)
            await built.vector.upsert(list(zip(live, vectors, strict=True)))
            await built.lexical.upsert(live)
        done += len(live)
    return done


async def vectors_for(
    memories: Sequence[Memory], embedder: Embedder, source: VectorIndex | None = None
) -> list[list[float]]:
    """A vector per memory: the one `source` holds (same model), else embedded now."""
    kept = await source.vectors([m.id for m in memories]) if source is not None else {}
    missing = [m for m in memories if m.id not in kept]
    fresh = await embed_in_chunks(embedder, missing)
    embedded = dict(zip([m.id for m in missing], fresh, strict=True))
    return [kept[m.id] if m.id in kept else embedded[m.id] for m in memories]


async def embed_in_chunks(embedder: Embedder, memories: Sequence[Memory]) -> list[list[float]]:
    """Nobody waits on a rebuild's passes: on the backlog worker where the embedder has one
    (BackgroundEmbedder), apart from the callers'."""
    embed = (
        embedder.embed_in_background if isinstance(embedder, BackgroundEmbedder) else embedder.embed
    )
    vectors: list[list[float]] = []
    for start in range(0, len(memories), EMBED_CHUNK):
        chunk = memories[start : start + EMBED_CHUNK]
        vectors += await embed([m.body for m in chunk])
    return vectors
