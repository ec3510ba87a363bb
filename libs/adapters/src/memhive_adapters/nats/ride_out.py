"""A bus call tried again while the bus is briefly unavailable: a stream electing its leader
after a node died (1-2 s), JetStream answering "temporarily unavailable", a connection
reconnecting. Within a budget of a few seconds, so a caller's answer stays short; after it,
the last failure (a 503 for a caller). A stalled bus and a full store are not retried:
they last longer than a request (`unavailable.is_transient`).

Only for calls that are safe to make twice: a publish with its Nats-Msg-Id (the stream
drops a duplicate), a read, a revision-checked write that knows its own record when a retry
meets it (`kv_memory_store`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from memhive_adapters.nats.unavailable import is_transient

T = TypeVar("T")

# Pauses between attempts; no new attempt starts after RETRY_BUDGET_S.
RETRY_PAUSES_S = (0.1, 0.25, 0.5, 1.0, 1.5)
RETRY_BUDGET_S = 3.5


async def ride_out(
    attempt: Callable[[], Awaitable[T]],
    pauses_s: tuple[float, ...] | None = None,
    budget_s: float | None = None,
) -> T:
    """`attempt`'s answer, asked again after each pause while it fails transiently and the
    budget allows; any other failure, or the last transient one, is raised as it came.
    None: RETRY_PAUSES_S, RETRY_BUDGET_S."""
    pauses_s = RETRY_PAUSES_S if pauses_s is None else pauses_s
    deadline = time.monotonic() + (RETRY_BUDGET_S if budget_s is None else budget_s)
    for pause in pauses_s:
        try:
            return await attempt()
        except Exception as exc:
            if not is_transient(exc) or time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
    return await attempt()
