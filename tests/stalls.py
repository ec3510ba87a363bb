"""A process stopped with SIGSTOP for the length of a block, as a hung server looks."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def stopped(pid: int) -> Iterator[float]:
    """SIGSTOP, and the moment it took hold; SIGCONT when the block ends, whatever happens."""
    os.kill(pid, signal.SIGSTOP)
    try:
        wait_until_stopped(pid)
        yield time.monotonic()
    finally:
        os.kill(pid, signal.SIGCONT)


def wait_until_stopped(pid: int, timeout_s: float = 5) -> None:
    """SIGSTOP takes hold when the kernel next schedules each thread: on a busy machine the
    server could answer one more request after the kill returned."""
    deadline = time.monotonic() + timeout_s
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert time.monotonic() < deadline, f"process {pid} did not stop"
        time.sleep(0.01)
