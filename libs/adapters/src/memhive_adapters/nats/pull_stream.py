"""A durable pull consumer's messages as they arrive, over one long-lived pull request.

nats-py's `fetch` sends a request per batch, and the server ends each with a status
message (nothing more now, or expired): two messages on the bus per batch, and a save
crosses several consumers one message at a time, so that doubled what each hop cost. Like
the newer clients' `consume` (nats.go), this keeps a request for up to `batch` messages
open (expiring after `expires_s`, with idle heartbeats), tops it up once half of it was
delivered, and hands out whatever has arrived: per message, its delivery and its ack.

Requests are lost when the server restarts or a stream leader changes: a status message
says so, or the heartbeats stop; either way what is outstanding is forgotten and asked for
again. Messages received but never handed out are nak'ed on close, so they come back at
once rather than after the ack wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

STATUS, PENDING = "Status", "Nats-Pending-Messages"
HEARTBEAT = "100"
EXPIRES_S = 30.0
HEARTBEAT_S = 2.0


class PullStream:
    def __init__(
        self,
        nc: Client,
        stream: str,
        durable: str,
        batch: int,
        *,
        expires_s: float = EXPIRES_S,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self._nc, self._batch = nc, batch
        self._next_subject = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self._expires_s, self._heartbeat_s = expires_s, heartbeat_s
        self._received: asyncio.Queue[Msg] = asyncio.Queue()
        self._sub: Subscription | None = None
        self._inbox = ""
        self._outstanding = 0  # messages the open requests may still deliver
        self._heard_at = time.monotonic()

    async def open(self) -> None:
        self._inbox = self._nc.new_inbox()
        self._sub = await self._nc.subscribe(self._inbox, cb=self._receive)
        self.restart()

    def restart(self) -> None:
        """Forget the open requests (the consumer was declared again, or they were lost)."""
        self._outstanding = 0

    async def next_batch(self, wait_s: float) -> list[Msg]:
        """Up to `batch` messages: waits at most `wait_s` for the first, none for the rest."""
        await self._top_up()
        deadline = time.monotonic() + wait_s
        msgs: list[Msg] = []
        while not msgs:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return msgs
            try:
                # Not wait_for: it wraps get() in a task of its own, for each wait.
                async with asyncio.timeout(min(remaining, self._heartbeat_s)):
                    msg = await self._received.get()
            except TimeoutError:
                await self._check_alive()
                continue
            self._take(msg, msgs)
        while len(msgs) < self._batch and not self._received.empty():
            self._take(self._received.get_nowait(), msgs)
        await self._top_up()
        return msgs

    async def close(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            with contextlib.suppress(Exception):  # the connection may be closed already
                await sub.unsubscribe()
        while not self._received.empty():  # handed out to no one: back to the stream now
            msg = self._received.get_nowait()
            if msg.headers is None or STATUS not in msg.headers:
                with contextlib.suppress(Exception):
                    await msg.nak()

    async def _receive(self, msg: Msg) -> None:
        self._heard_at = time.monotonic()
        self._received.put_nowait(msg)

    def _take(self, msg: Msg, into: list[Msg]) -> None:
        status = None if msg.headers is None else msg.headers.get(STATUS)
        if status is None:
            self._outstanding = max(self._outstanding - 1, 0)
            into.append(msg)
        elif status != HEARTBEAT:  # a request ended (expired, refused, leader gone...)
            pending = msg.headers.get(PENDING) if msg.headers else None
            left = self._outstanding - int(pending) if pending and pending.isdigit() else 0
            self._outstanding = max(left, 0)

    async def _check_alive(self) -> None:
        """No heartbeat for two periods: the open requests are gone; ask again."""
        if self._outstanding and time.monotonic() - self._heard_at > 2 * self._heartbeat_s:
            self.restart()
            await self._top_up()

    async def _top_up(self) -> None:
        if self._sub is None or self._outstanding > self._batch // 2:
            return
        wanted = self._batch - self._outstanding
        request = {
            "batch": wanted,
            "expires": int(self._expires_s * 1e9),
            "idle_heartbeat": int(self._heartbeat_s * 1e9),
        }
        await self._nc.publish(self._next_subject, json.dumps(request).encode(), self._inbox)
        self._outstanding += wanted
        self._heard_at = time.monotonic()
