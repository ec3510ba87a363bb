"""Vectors kept to their own encoder's lanes.

A vector from one encoder compared with vectors of another gives a score that means
nothing, so a lane generation only ever meets vectors of its own encoder: a vector that
names another (an `EncodedVector`, e.g. a query embedded just before a swap, or one that
travelled on the bus from a replica still on the old generation) is embedded again from
its text. A vector that names no encoder is taken to be of `assumed`, the encoder of the
generation the caller serves.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from memhive_domain.memory import Memory
from memhive_ports import Embedder

log = logging.getLogger(__name__)


def encoder_of(vector: Sequence[float], assumed: str) -> str:
    return getattr(vector, "encoder", assumed)


async def query_in_encoder(
    embedder: Embedder, vector: Sequence[float], assumed: str
) -> Sequence[float] | None:
    """`vector` in `embedder`'s encoder, or None when that cannot be had (no text)."""
    if encoder_of(vector, assumed) == embedder.model_name:
        return vector
    text = getattr(vector, "text", None)
    if text is None:
        log.warning(
            "a query vector of %s met lanes of %s", encoder_of(vector, assumed), embedder.model_name
        )
        return None
    return (await embedder.embed([text]))[0]


async def items_in_encoder(
    embedder: Embedder, items: Sequence[tuple[Memory, Sequence[float]]], assumed: str
) -> list[tuple[Memory, Sequence[float]]]:
    """Each memory with a vector of `embedder`'s encoder: those of another encoder are
    embedded again from the memory's body."""
    stale = [i for i, (_, v) in enumerate(items) if encoder_of(v, assumed) != embedder.model_name]
    if not stale:
        return list(items)
    fresh = await embedder.embed([items[i][0].body for i in stale])
    matched = list(items)
    for index, vector in zip(stale, fresh, strict=True):
        matched[index] = (items[index][0], vector)
    return matched
