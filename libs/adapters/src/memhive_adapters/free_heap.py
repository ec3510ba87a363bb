"""Gives the C heap's free pages back to the kernel (glibc's `malloc_trim`).

A swap of the vector lane frees a shard's worth of memory at once: the old shard's
segments and the build's journal, freed while the new shard was being filled. glibc
returns only the top of a heap by itself, so pages freed below live allocations stay in the
process's anonymous memory until something reuses them. After the first swap after a
500k bulk load: 1,514 MiB anonymous, 709 MiB once trimmed (0.27 s; docs/benchmarks.md,
"The swap's freed memory"). Dask's workers trim the same way after large frees.

`malloc_trim` runs without the GIL but takes each malloc arena's lock in turn, so a thread
that allocates meanwhile waits: call it after a rare, large release, not on a hot path.
Without glibc (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the process already runs on
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_free_heap() -> bool:
    """Whether any memory went back to the kernel (False without glibc)."""
    trim = _malloc_trim()
    return trim is not None and trim(0) == 1
