"""SIGINT and SIGTERM ask a memhive process to stop (drain, close), never kill it mid-write.
Which signal stopped it is logged: an operator reading a pod's log, or a test whose memhive
went away, sees a stop that was asked for apart from a crash (a traceback) or a kill
(an exit code and no line)."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

log = logging.getLogger("memhive_cli")


def stop_on_signals(stop: Callable[[], None]) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _stopping, sig, stop)


def _stopping(sig: signal.Signals, stop: Callable[[], None]) -> None:
    log.info("%s: stopping cleanly", sig.name)
    stop()
