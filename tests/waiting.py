"""Waiting, bounded, for something another task or process does in its own time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

POLL_S = 0.005


async def until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Returns once `condition()` holds; TimeoutError after `timeout_s`."""
    async with asyncio.timeout(timeout_s):
        while not condition():  # noqa: ASYNC110 - a state with no event of its own, polled
            await asyncio.sleep(POLL_S)
