"""A thread's CPU priority: embed's backlog passes yield the cores to the work callers wait on.

Linux schedules threads, and a thread's nice value is its own (setpriority with a thread id);
raising it needs no privilege. Elsewhere the call would name a process, so nothing is done.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger(__name__)


def lower_this_thread(niceness: int) -> None:
    """Raise the calling thread's nice value to `niceness`; never lower it (that needs a
    privilege, and a process started nicer stays so)."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        if niceness > os.getpriority(os.PRIO_PROCESS, thread):
            os.setpriority(os.PRIO_PROCESS, thread, niceness)
    except OSError as e:  # a sandbox that forbids it: the passes run, at the usual priority
        log.warning("could not lower the backlog thread's priority to nice %s: %s", niceness, e)
