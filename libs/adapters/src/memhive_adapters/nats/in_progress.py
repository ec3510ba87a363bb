"""In-progress acks for a batch being handled: the server redelivers a message not acked
within its ack wait, so a handler that runs longer keeps telling it the work goes on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from nats.aio.msg import Msg

log = logging.getLogger(__name__)


class InProgressAcks:
    """Every `every_s` while a batch is handled, an in-progress ack for each of its messages,
    until `stop`.

    A timer on the loop, not a task per batch: most batches end long before the first
    report, and a task's creation, cancellation and await cost the loop more than the rest
    of a batch's bookkeeping (~3 batches a save)."""

    def __init__(self, msgs: Sequence[Msg], every_s: float) -> None:
        self._msgs, self._every_s = msgs, every_s
        self._loop = asyncio.get_running_loop()
        self._timer = self._loop.call_later(every_s, self._due)
        self._sending: asyncio.Task[None] | None = None

    def _due(self) -> None:
        if self._sending is None or self._sending.done():
            self._sending = self._loop.create_task(self._send())
        self._timer = self._loop.call_later(self._every_s, self._due)

    async def _send(self) -> None:
        try:
            for msg in self._msgs:
                await msg.in_progress()
        except Exception as exc:  # the next report tries again; at worst, a redelivery
            log.warning("in-progress acks not sent for %d messages: %r", len(self._msgs), exc)

    async def stop(self) -> None:
        """No report after this returns (the batch is about to be acked)."""
        self._timer.cancel()
        if self._sending is not None and not self._sending.done():
            self._sending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sending
