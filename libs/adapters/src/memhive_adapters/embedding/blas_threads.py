"""How many threads NumPy's OpenBLAS may use for the calls of the current thread only."""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """Within the block, BLAS calls from this thread use `threads` threads (0: leave as is).

    OpenBLAS's thread-local setting, so other threads (and other embedders) are untouched.
    Where NumPy's BLAS is not an OpenBLAS that has it, this does nothing.
    """
    setter = _thread_local_setter()
    if threads <= 0 or setter is None:
        yield
        return
    previous = setter(threads)
    try:
        yield
    finally:
        setter(previous)


@cache
def _thread_local_setter() -> Callable[[int], int] | None:
    libs = Path(np.__file__).parent.parent / "numpy.libs"
    for candidate in sorted(libs.glob("*openblas*.so*")):
        setter = getattr(ctypes.CDLL(str(candidate)), "openblas_set_num_threads_local", None)
        if setter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
            return setter
    return None
