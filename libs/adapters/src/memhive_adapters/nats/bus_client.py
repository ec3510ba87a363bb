"""memhive's NATS connection: nats-py's client whose failures speak the ports' language and
whose calls stay short when the bus stalls.

Every request (KV reads, JetStream API calls, publish acks, requests to services) goes
through `BusClient.request`, and every JetStream call through `BusJetStream`, so this is
the one place where bus failures are mapped (`unavailable.py`):
- a timeout is BusTimeout, no responders BusNoResponders, JetStream's 503 and "out of
  space" answers JetStreamUnavailable / JetStreamOutOfStorage: each is both the port's
  error (BusUnavailable, InsufficientStorage) and the nats-py error it replaces, so
  nats-py's own handling and ours keep working, and entry points answer 503 / 507;
- a request unanswered for `SLOW_S` (1 s) asks the bus whether it answers at all
  (`bus_liveness.py`): while it does not, requests fail at once instead of each waiting its
  timeout, and those waiting on the question end with its answer.

A request without a timeout waits `request_timeout_s` (MEMHIVE_NATS__REQUEST_TIMEOUT_S,
4 s), and JetStream calls default to it too. A slow bus (a loaded machine) keeps its time:
only one that does not answer the probe is unavailable.

A drain (a process stopping) never waits on a server that is gone: see `drain`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from memhive_contracts.streams import LOG_STREAM
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import ConnectionClosedError, NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import DEFAULT_PREFIX
from nats.js.errors import APIError, NoStreamResponseError

from memhive_adapters.nats.bus_liveness import BusLiveness
from memhive_adapters.nats.ride_out import ride_out
from memhive_adapters.nats.unavailable import (
    BusNoResponders,
    BusStalled,
    BusTimeout,
    StreamNotAnswering,
    raise_refined,
)

T = TypeVar("T")

DEFAULT_REQUEST_TIMEOUT_S = 4.0
SERVER_CHECK_S = 0.05  # how often a drain looks whether the server is still there
# Answered by the log stream's leader, and every bus user may ask it (bus_permissions).
PROBE_SUBJECT = f"{DEFAULT_PREFIX}.STREAM.INFO.{LOG_STREAM}"


class BusClient(Client):
    def __init__(self, request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S) -> None:
        super().__init__()
        self.request_timeout_s = request_timeout_s
        self.liveness = BusLiveness(self._probe)

    async def request(
        self,
        subject: str,
        payload: bytes = b"",
        timeout: float | None = None,  # noqa: ASYNC109 - nats-py's signature
        old_style: bool = False,
        headers: dict[str, Any] | None = None,
    ) -> Msg:
        timeout = self.request_timeout_s if timeout is None else timeout
        self.liveness.raise_if_stalled()
        call = super().request(subject, payload, timeout, old_style, headers)
        return await self.watched(call, subject, timeout)

    async def watched(self, call: Coroutine[Any, Any, T], subject: str, waits_s: float) -> T:
        """The answer `call` awaits from the bus (a request, or a reply to an inbox of the
        caller's own, as `kv_latest_many` reads), with a request's liveness checks and
        failures: nats-py's timeout or no responders become the ports' errors."""
        if self.liveness.stalled:
            call.close()
            raise self.liveness.stalled_error()
        try:
            reply = await self._answer(call)
        except BusStalled:
            raise
        except NatsTimeout as exc:
            self.liveness.unanswered()
            raise BusTimeout(f"the bus did not answer within {waits_s:g} s") from exc
        except NoRespondersError as exc:
            raise BusNoResponders(f"nobody answers on the bus for {_kind(subject)}") from exc
        self.liveness.answered()
        return reply

    async def _answer(self, call: Coroutine[Any, Any, T]) -> T:
        if self.liveness.suspect:  # a probe is out: its verdict may end this request early
            return await self.liveness.bounded(call)
        request = self.liveness.sent()  # one unanswered for SLOW_S makes the bus suspect
        try:
            return await call
        finally:
            self.liveness.settled(request)

    def jetstream(self, **opts: Any) -> BusJetStream:
        opts.setdefault("timeout", self.request_timeout_s)
        return BusJetStream(self, **opts)

    async def close(self) -> None:
        await self.liveness.close()
        await super().close()

    async def drain(self) -> None:
        """Lets subscriptions finish and flushes what was published, then closes; while the
        server is gone, closes at once instead.

        nats-py's drain refuses to start while it reconnects, and one that loses its server
        midway waits out `drain_timeout` (10 s) before a flush that fails: a service whose
        embedded server died with its parent (kill -9) kept running 10 s and exited with an
        error. Nothing left could reach a lost server anyway, and whatever was not acked is
        delivered again."""
        await self.liveness.close()
        if self.is_closed:
            return
        if not self.is_connected:
            await super().close()
            return
        draining = asyncio.ensure_future(super().drain())
        while not draining.done() and not self.is_reconnecting:
            await asyncio.wait({draining}, timeout=SERVER_CHECK_S)
        if not draining.done():  # the server went away midway
            await super().close()
            # End the subscriptions' drains, not the drain: nats-py then ends it itself and
            # reads their outcome (cancelling it instead logs "exception never retrieved").
            for task in self._subscription_drains():
                task.cancel()
        # Losing the server at the last flush is the same case.
        with contextlib.suppress(ConnectionError, ConnectionClosedError):
            await draining

    def _subscription_drains(self) -> list[asyncio.Task[Any]]:
        """nats-py's drain runs one task per subscription (`Subscription._drain`)."""
        drains = []
        for task in asyncio.all_tasks():
            coro = task.get_coro()
            frame = getattr(coro, "cr_frame", None)
            if getattr(coro, "__qualname__", "") != "Subscription._drain" or frame is None:
                continue
            if getattr(frame.f_locals.get("self"), "_conn", None) is self:
                drains.append(task)
        return drains

    async def _probe(self, deadline_s: float) -> None:
        await super().request(PROBE_SUBJECT, b"", deadline_s)


class BusJetStream(JetStreamContext):
    """JetStream calls whose "unavailable" and "out of space" answers are the ports' errors."""

    async def publish(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().publish(*args, **kwargs)
        except NoStreamResponseError as exc:
            raise StreamNotAnswering("no stream took the message (no leader?)") from exc
        except APIError as exc:
            raise_refined(exc)

    async def get_msg(self, *args: Any, **kwargs: Any) -> Any:
        """A read (KV gets among them), asked again while a leader is being elected."""
        return await ride_out(lambda: self._get_msg_once(*args, **kwargs))

    async def _get_msg_once(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_msg(*args, **kwargs)
        except APIError as exc:
            raise_refined(exc)

    async def _api_request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return await super()._api_request(*args, **kwargs)
        except APIError as exc:
            raise_refined(exc)


def _kind(subject: str) -> str:
    """What a subject is for, without its workspace or key parts."""
    if subject.startswith("$JS.") or subject.startswith("$KV."):
        return "JetStream"
    return ".".join(subject.split(".")[:3])
