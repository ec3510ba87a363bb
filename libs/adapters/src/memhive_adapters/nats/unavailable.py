"""Bus failures a caller can only wait out, told as the ports' RetryLater errors so entry
points answer 503 (BusUnavailable) or 507 (InsufficientStorage) instead of 500, and
consumers retry instead of dead-lettering.

- BusUnavailable: no stream responders while a leader is elected, a timeout, a stalled
  or reconnecting connection, JetStream answering 503.
- InsufficientStorage: JetStream refusing a write for lack of space (its `max_file_store`
  reached, or the disk full).

`bus_client.py` raises these at the source, for every request and JetStream call of a
memhive connection, as classes that are also the nats-py error they stand for (code that
catches nats-py's errors, nats-py's own included, still does). `unavailable_as_port_error`
is for errors raised elsewhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import NoReturn

from memhive_ports import BusUnavailable, InsufficientStorage, RetryLater
from nats.errors import ConnectionReconnectingError, NoRespondersError, OutboundBufferLimitError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import APIError, NoStreamResponseError

_TRANSIENT = (
    NoStreamResponseError,
    NoRespondersError,
    NatsTimeout,
    ConnectionReconnectingError,
    OutboundBufferLimitError,
)
# JetStream's "insufficient resources" (its storage limit) and "insufficient storage
# resources available" (a stream cannot grow).
OUT_OF_STORAGE = frozenset({10023, 10047})
# "store failed" (10077): the server could not write, e.g. creating a stream on a full disk.
_STORE_FAILED = 10077


class _Told:
    """str() is the sentence the error was made with (nats-py's classes fix their own)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else super().__str__()


class BusTimeout(_Told, BusUnavailable, NatsTimeout):
    """A request the bus did not answer in time."""


class BusStalled(_Told, BusUnavailable, NatsTimeout):
    """Refused without asking: the bus has not answered a probe since a request timed out."""


class BusNoResponders(_Told, BusUnavailable, NoRespondersError):
    """Nobody listens on the subject (no stream leader, no service replica)."""


class StreamNotAnswering(_Told, BusUnavailable, NoStreamResponseError):
    """No stream took a publish (none owns the subject, or it has no leader right now)."""


class JetStreamUnavailable(BusUnavailable, APIError):
    """JetStream answered 503."""

    def __str__(self) -> str:
        return f"JetStream is unavailable ({self.description or 'no reason given'})"


class JetStreamOutOfStorage(InsufficientStorage, APIError):
    """JetStream refused to store: its storage limit is reached or its disk is full."""

    def __str__(self) -> str:
        return f"the bus's store is out of space ({self.description or 'no reason given'})"


def out_of_storage(exc: BaseException) -> bool:
    if isinstance(exc, InsufficientStorage):
        return True
    if not isinstance(exc, APIError):
        return False
    code = getattr(exc, "err_code", None)  # some APIError subclasses never set it
    described = str(getattr(exc, "description", "") or "").lower()
    return code in OUT_OF_STORAGE or (code == _STORE_FAILED and "no space left" in described)


def refined(exc: APIError) -> APIError:
    """A JetStream error that says the bus or its disk is the trouble, as the port's error
    (still an APIError with the same fields); any other, unchanged."""
    fields = {
        "code": exc.code,
        "description": exc.description,
        "err_code": getattr(exc, "err_code", None),
        "stream": getattr(exc, "stream", None),
        "seq": getattr(exc, "seq", None),
    }
    if isinstance(exc, RetryLater):
        return exc
    if out_of_storage(exc):
        return JetStreamOutOfStorage(**fields)
    if exc.code == 503:
        return JetStreamUnavailable(**fields)
    return exc


def raise_refined(exc: APIError) -> NoReturn:
    told = refined(exc)
    if told is exc:
        raise exc
    raise told from exc


def raise_api_error(error: dict) -> NoReturn:
    """Raises nats-py's error for a JetStream error answer, refined."""
    try:
        APIError.from_error(error)
    except APIError as exc:
        raise_refined(exc)
    raise APIError(**error)  # from_error always raises; for the type checker


def is_transient(exc: BaseException) -> bool:
    """Worth retrying at once: not a stalled bus (it answers nothing until a probe says it
    is back) nor a full store (that takes someone freeing space)."""
    if isinstance(exc, BusStalled) or out_of_storage(exc):
        return False
    return isinstance(exc, (BusUnavailable, *_TRANSIENT)) or (
        isinstance(exc, APIError) and getattr(exc, "code", None) == 503
    )


def port_error(exc: BaseException, what: str) -> RetryLater | None:
    """The port's error for `exc`, naming what failed; None for any other failure."""
    if isinstance(exc, RetryLater):
        return exc
    if out_of_storage(exc):
        return InsufficientStorage(f"{what}: the bus's store is out of space")
    if is_transient(exc):
        return BusUnavailable(f"{what}: {type(exc).__name__}")
    return None


@contextlib.asynccontextmanager
async def unavailable_as_port_error(what: str) -> AsyncIterator[None]:
    """Within the block, a bus failure to wait out becomes the port's error naming `what`."""
    try:
        yield
    except Exception as exc:
        told = port_error(exc, what)
        if told is None or told is exc:
            raise
        raise told from exc
