"""Bus failures a caller can only wait out (no stream responders while a leader is elected,
a timeout, a reconnecting connection, JetStream answering 503), told as the port's
BusUnavailable so entry points answer 503 with Retry-After instead of 500."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from memhive_ports import BusUnavailable
from nats.errors import ConnectionReconnectingError, NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import APIError, NoStreamResponseError

_TRANSIENT = (NoStreamResponseError, NoRespondersError, NatsTimeout, ConnectionReconnectingError)


def is_transient(exc: BaseException) -> bool:
    # getattr: some APIError subclasses (KeyNotFoundError) never set a code
    return isinstance(exc, _TRANSIENT) or (
        isinstance(exc, APIError) and getattr(exc, "code", None) == 503
    )


@contextlib.asynccontextmanager
async def unavailable_as_port_error(what: str) -> AsyncIterator[None]:
    """Within the block, a transient bus failure becomes BusUnavailable naming `what`."""
    try:
        yield
    except Exception as exc:
        if is_transient(exc):
            raise BusUnavailable(f"{what}: {type(exc).__name__}") from exc
        raise
