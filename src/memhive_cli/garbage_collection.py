"""How a serving memhive process runs CPython's cyclic garbage collector.

With CPython's defaults (a young collection every 700 tracked objects more alive than
before), a save's short-lived objects (futures, messages, decoded events) that live across
an await were promoted again and again, so the oldest generation filled and was collected
every ~1,000 saves: a full collection of the whole heap (the encoder's vocabulary, the
pydantic schemas, the records' caches), 140-220 ms with the event loop stopped, ~0.3 ms a
save of CPU in all (docs/benchmarks.md, "The garbage collector's pauses"). Two changes, as
long-running CPython servers commonly make:

- **A larger young generation** (`YOUNG_GENERATION`): most of a request's objects die of
  their reference count before a collection comes, so few are promoted, and the old
  generations fill, and are collected, far more rarely.
- **What startup made is frozen** once the process serves (`gc.freeze`): modules, classes,
  schemas and the model's tables stay for the process's life, so the rare full collection
  no longer walks them.

Reference counting frees almost everything either way; the collector is only for cycles,
which now wait a little longer.
"""

from __future__ import annotations

import gc

YOUNG_GENERATION = 5_000  # CPython's default: 700


def collect_for_a_server() -> None:
    """The young generation's threshold raised; the older ones' left as they are."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, oldest)


def freeze_startup_objects() -> None:
    """Once the process serves: startup's garbage collected, what is left frozen (never
    walked by a collection again)."""
    gc.collect()
    gc.freeze()
