"""Which bus failures become BusUnavailable (a 503 to callers) and which stay themselves."""

from __future__ import annotations

import pytest
from memhive_adapters.nats.unavailable import unavailable_as_port_error
from memhive_ports import BusUnavailable
from nats.errors import ConnectionReconnectingError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import APIError, KeyNotFoundError, NoStreamResponseError


@pytest.mark.parametrize(
    "failure",
    [NoStreamResponseError(), NatsTimeout(), ConnectionReconnectingError(), APIError(code=503)],
)
async def test_transient_failures_are_told_as_bus_unavailable(failure: Exception) -> None:
    with pytest.raises(BusUnavailable, match=f"^the write: {type(failure).__name__}$"):
        async with unavailable_as_port_error("the write"):
            raise failure


@pytest.mark.parametrize(
    "failure", [APIError(code=400, err_code=10071), KeyNotFoundError(), KeyError("x")]
)
async def test_other_failures_pass_unchanged(failure: Exception) -> None:
    with pytest.raises(type(failure)):
        async with unavailable_as_port_error("the write"):
            raise failure
