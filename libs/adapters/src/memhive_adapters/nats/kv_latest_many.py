"""The latest values of many KV keys in one request: a direct get of the keys' last messages
(`multi_last`, ADR-31), answered as one message per key present and an end-of-batch marker.

A recall reads some 26 records: one request instead of 26 cuts nats-server's CPU per recall
to about a third (`docs/benchmarks.md`, issue 25's recall). A direct get is answered by any
server holding the stream, so it is used only where that server is the leader's store: a
stream with one replica, which one server holds (ADR-31: "routing requests to a stream's
current peer leader (R>1) or single server (R=1)"). `open_latest_many` decides from the
bucket's stream when the store opens; memhive declares its buckets without mirrors, which
could answer direct gets too (`mirror_direct`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import APIError

from memhive_adapters.nats.kv_latest import Latest, is_valid_key

# The server refuses a multi_last over more subjects than this (413).
MAX_KEYS = 1024
_NOT_FOUND, _END_OF_BATCH, _NO_RESPONDERS = "404", "204", "503"
_API_PREFIX = "$JS.API"


class LatestMany:
    """Reads many keys of one bucket at once. Keys never written, deleted, purged or invalid
    are absent from the answer. One inbox subscription serves every call."""

    def __init__(self, nc: Client, bucket: str, timeout_s: float | None = None) -> None:
        # A request's timeout (MEMHIVE_NATS__REQUEST_TIMEOUT_S) unless told otherwise.
        timeout_s = timeout_s or getattr(nc, "request_timeout_s", 4.0)
        self._nc, self._timeout_s = nc, timeout_s
        self._subject = f"{_API_PREFIX}.DIRECT.GET.KV_{bucket}"
        self._prefix = f"$KV.{bucket}."
        self._inbox = nc.new_inbox()
        self._calls: dict[str, _Answer] = {}
        self._tokens = itertools.count()
        self._sub: Subscription | None = None
        self._subscribing = asyncio.Lock()  # two first calls at once make one subscription

    async def get(self, keys: Sequence[str]) -> dict[str, Latest]:
        wanted = [k for k in dict.fromkeys(keys) if is_valid_key(k)]
        found: dict[str, Latest] = {}
        for start in range(0, len(wanted), MAX_KEYS):
            found |= await self._get_batch(wanted[start : start + MAX_KEYS])
        return found

    async def close(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            await sub.unsubscribe()

    async def _get_batch(self, keys: list[str]) -> dict[str, Latest]:
        if not keys:
            return {}
        if self._sub is None:
            async with self._subscribing:
                if self._sub is None:
                    self._sub = await self._nc.subscribe(f"{self._inbox}.*", cb=self._deliver)
        token = f"{self._inbox}.{next(self._tokens)}"
        answer = self._calls[token] = _Answer(len(self._prefix))
        asked = self._asked(keys, token, answer)
        watched = getattr(self._nc, "watched", None)  # a BusClient's: its liveness and errors
        try:
            return await (
                asked if watched is None else watched(asked, self._subject, self._timeout_s)
            )
        finally:
            del self._calls[token]

    async def _asked(self, keys: list[str], token: str, answer: _Answer) -> dict[str, Latest]:
        request = {"multi_last": [self._prefix + k for k in keys], "batch": len(keys)}
        await self._nc.publish(self._subject, json.dumps(request).encode(), reply=token)
        try:
            async with asyncio.timeout(self._timeout_s):  # no task, as wait_for makes
                await answer.done.wait()
        except TimeoutError:  # as a leader read times out: callers tell it transient
            raise NatsTimeout from None
        return answer.result()

    async def _deliver(self, msg: Msg) -> None:
        answer = self._calls.get(msg.subject)
        if answer is not None:  # else a call that timed out: its late replies are dropped
            answer.take(msg)


class _Answer:
    """What one call has received so far."""

    def __init__(self, prefix_length: int) -> None:
        self._prefix_length = prefix_length
        self.found: dict[str, Latest] = {}
        self.error: str | None = None
        self.no_responders = False
        self.done = asyncio.Event()

    def take(self, msg: Msg) -> None:
        headers = msg.headers or {}
        status = headers.get("Status")
        if status is None:
            if "KV-Operation" not in headers:  # a delete or purge marker: absent
                key = headers["Nats-Subject"][self._prefix_length :]
                self.found[key] = Latest(msg.data, int(headers["Nats-Sequence"]))
            return
        if status == _NO_RESPONDERS:  # no server holds the stream now (a leader election)
            self.no_responders = True
        elif status not in (_END_OF_BATCH, _NOT_FOUND):
            self.error = f"direct get answered {status} {headers.get('Description', '')}"
        elif headers.get("Nats-Num-Pending", "0") != "0":
            self.error = "direct get ended its batch before every key"
        self.done.set()

    def result(self) -> dict[str, Latest]:
        if self.no_responders:
            raise NoRespondersError
        if self.error is not None:
            raise APIError(description=self.error)
        return self.found


async def open_latest_many(nc: Client, bucket: str) -> LatestMany | None:
    """A batched reader when the bucket's stream allows direct gets and has one replica;
    None otherwise (callers read each key from the leader: `kv_latest.LatestValues`)."""
    info = await nc.jetstream().stream_info(f"KV_{bucket}")
    if info.config.allow_direct and info.config.num_replicas == 1:
        return LatestMany(nc, bucket)
    return None
