"""SIGINT and SIGTERM ask a memhive process to stop (drain, close), never kill it mid-write."""

from __future__ import annotations

import asyncio
import signal


def stop_on_signals(stop) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
