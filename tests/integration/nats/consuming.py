"""Test doubles and waits for consumer tests: a scripted batch handler and a drain wait."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memhive_contracts import streams
from nats.aio.msg import Msg
from nats.js import JetStreamContext

WAIT_S = 15.0  # a guard against hanging, never a measurement


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def subject_for(tag: str) -> str:
    """A subject in the log stream that no service consumes."""
    return f"memhive.evt.test.{tag}"


@dataclass
class ScriptedHandler:
    """Handles a batch, unless `fail(msg)` returns an exception for one of its messages."""

    fail: Callable[[Msg], Exception | None] = lambda msg: None
    calls: list[list[bytes]] = field(default_factory=list)
    handled: list[bytes] = field(default_factory=list)
    work_s: float = 0.0

    async def __call__(self, msgs: Sequence[Msg]) -> None:
        self.calls.append([m.data for m in msgs])
        for msg in msgs:
            error = self.fail(msg)
            if error is not None:
                raise error
        if self.work_s:
            await asyncio.sleep(self.work_s)  # simulated work, so instances interleave
        self.handled.extend(m.data for m in msgs)


async def publish_all(js: JetStreamContext, subject: str, payloads: Sequence[bytes]) -> None:
    for payload in payloads:
        await js.publish(subject, payload)


async def drained(js: JetStreamContext, durable: str, stream: str = streams.LOG_STREAM) -> None:
    """Waits until every message of the consumer was delivered and acked or termed."""

    async def settled() -> bool:
        info = await js.consumer_info(stream, durable)
        return info.num_pending == 0 and info.num_ack_pending == 0

    async def poll() -> None:
        # The server offers no "consumer drained" notification: ask it until it says so.
        while not await settled():  # noqa: ASYNC110
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), WAIT_S)
