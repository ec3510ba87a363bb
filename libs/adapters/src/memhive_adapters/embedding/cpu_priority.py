"""A worker thread at a lower CPU priority, for work nobody is waiting on.

Linux gives each thread a nice value of its own (`setpriority` on its thread id), and a thread
starts with its creator's: so the worker lowers its own once, at its start, and nothing else
in the process changes. Raising a nice value needs no privilege.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)


def lower_priority_worker(nice: int, name: str) -> ThreadPoolExecutor:
    """One worker thread whose nice value is raised by `nice` (0: left as it is)."""

    def lower() -> None:
        if nice <= 0:
            return
        try:
            current = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(current + nice, 19))
        except (AttributeError, OSError) as exc:  # not Linux, or refused: same priority
            log.warning("could not lower the priority of %s: %s", name, exc)

    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=name, initializer=lower)
