"""Which bus failures become BusUnavailable (a 503 to callers), which InsufficientStorage
(507), and which stay themselves."""

from __future__ import annotations

import pytest
from memhive_adapters.nats.unavailable import (
    BusStalled,
    BusTimeout,
    is_transient,
    refined,
    unavailable_as_port_error,
)
from memhive_ports import BusUnavailable, InsufficientStorage
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


@pytest.mark.parametrize(
    "failure",
    [
        APIError(code=503, err_code=10023, description="insufficient resources"),
        APIError(code=500, err_code=10047, description="insufficient storage resources available"),
        APIError(code=503, err_code=10077, description="write x: no space left on device"),
    ],
)
async def test_a_store_out_of_space_is_insufficient_storage(failure: APIError) -> None:
    with pytest.raises(InsufficientStorage, match="^the write: the bus's store is out of space$"):
        async with unavailable_as_port_error("the write"):
            raise failure


def test_refined_errors_stay_the_nats_errors_they_replace() -> None:
    full = refined(APIError(code=503, err_code=10023, description="insufficient resources"))
    assert isinstance(full, InsufficientStorage) and isinstance(full, APIError)
    assert (full.code, full.err_code) == (503, 10023)
    assert str(full) == "the bus's store is out of space (insufficient resources)"
    down = refined(APIError(code=503, err_code=10008, description="JetStream not ready"))
    assert isinstance(down, BusUnavailable) and isinstance(down, APIError)
    conflict = APIError(code=400, err_code=10071, description="wrong last sequence")
    assert refined(conflict) is conflict


def test_a_stalled_bus_and_a_full_store_are_not_retried_at_once() -> None:
    assert is_transient(NoStreamResponseError())
    assert is_transient(BusTimeout("the bus did not answer within 2 s"))
    assert not is_transient(BusStalled("the bus has not answered for 3 s"))
    assert not is_transient(APIError(code=503, err_code=10023))
