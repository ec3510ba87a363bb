"""A stop signal stops memhive gracefully and says which signal it was."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import pytest

from memhive_cli.signals import stop_on_signals


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_a_stop_signal_is_named_and_asks_the_process_to_stop(
    sig: signal.Signals, caplog: pytest.LogCaptureFixture
) -> None:
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    stop_on_signals(stopped.set)
    try:
        with caplog.at_level(logging.INFO, logger="memhive_cli"):
            os.kill(os.getpid(), sig)
            await asyncio.wait_for(stopped.wait(), 5)
    finally:
        for handled in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(handled)
    assert f"{sig.name}: stopping" in caplog.text


async def test_a_stop_is_logged_once_however_often_it_is_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Ctrl-C under `make run` arrives twice: from the terminal and from `uv run`."""
    stops: list[None] = []
    loop = asyncio.get_running_loop()
    stop_on_signals(lambda: stops.append(None))
    try:
        with caplog.at_level(logging.INFO, logger="memhive_cli"):
            for asked, sig in enumerate((signal.SIGINT, signal.SIGINT, signal.SIGTERM), 1):
                os.kill(os.getpid(), sig)
                await asyncio.wait_for(_until(lambda n=asked: len(stops) == n), 5)
    finally:
        for handled in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(handled)
    assert len(stops) == 3  # each still asks: stopping is idempotent
    assert [r.getMessage() for r in caplog.records] == ["SIGINT: stopping cleanly"]


async def _until(condition) -> None:
    while not condition():  # noqa: ASYNC110 - a signal handler sets nothing to await
        await asyncio.sleep(0.01)
