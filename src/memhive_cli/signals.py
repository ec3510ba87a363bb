"""SIGINT and SIGTERM ask a memhive process to stop (drain, close), never kill it mid-write.
Which signal stopped it is logged: an operator reading a pod's log, or a test whose memhive
went away, sees a stop that was asked for apart from a crash (a traceback) or a kill
(an exit code and no line). Once: a Ctrl-C under `make run` reaches memhive twice (from the
terminal, to the whole process group, and from `uv run`, which passes it on)."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

log = logging.getLogger("memhive_cli")


def stop_on_signals(stop: Callable[[], None]) -> None:
    loop = asyncio.get_running_loop()
    asked: list[signal.Signals] = []

    def stopping(sig: signal.Signals) -> None:
        if asked:
            log.debug("%s: already stopping (since %s)", sig.name, asked[0].name)
        else:
            log.info("%s: stopping cleanly", sig.name)
        asked.append(sig)
        stop()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping, sig)
