"""A bus call is asked again while the bus is briefly unavailable (a leader being elected),
within its budget, and never for a failure that asking again cannot mend."""

from __future__ import annotations

import base64
import json
import time
from types import SimpleNamespace

import pytest
from memhive_adapters.nats.bus_client import BusJetStream
from memhive_adapters.nats.kv_latest import LatestValues
from memhive_adapters.nats.ride_out import ride_out
from memhive_adapters.nats.unavailable import BusStalled, JetStreamUnavailable
from memhive_ports import InsufficientStorage
from nats.errors import NoRespondersError
from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError

ELECTING = {"code": 503, "err_code": 10008, "description": "JetStream system temporarily unavailable"}  # fmt: skip
PAUSES = (0.01, 0.01, 0.01)


class Flaky:
    """Fails with each of `failures` in turn, then answers `answer`."""

    def __init__(self, *failures: BaseException, answer: object = "answer") -> None:
        self.failures, self.answer, self.calls = list(failures), answer, 0

    async def __call__(self) -> object:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.answer


async def test_a_leader_being_elected_is_ridden_out() -> None:
    attempt = Flaky(NoRespondersError(), JetStreamUnavailable(**ELECTING))

    assert await ride_out(attempt, PAUSES) == "answer"
    assert attempt.calls == 3


@pytest.mark.parametrize(
    "failure",
    [
        BusStalled("the bus has not answered its probe"),
        InsufficientStorage("the disk is full"),
        NotFoundError(code=404, err_code=10059, description="stream not found"),
        ValueError("a bug"),
    ],
)
async def test_what_asking_again_cannot_mend_is_raised_at_once(failure: Exception) -> None:
    attempt = Flaky(failure)

    with pytest.raises(type(failure)):
        await ride_out(attempt, PAUSES)
    assert attempt.calls == 1


async def test_after_its_pauses_the_last_failure_is_raised() -> None:
    attempt = Flaky(*[NoRespondersError()] * 10)

    with pytest.raises(NoRespondersError):
        await ride_out(attempt, PAUSES)
    assert attempt.calls == len(PAUSES) + 1


async def test_no_attempt_starts_after_the_budget() -> None:
    attempt = Flaky(*[NoRespondersError()] * 10)
    started = time.monotonic()

    with pytest.raises(NoRespondersError):
        await ride_out(attempt, (0.05, 0.05, 0.05, 0.05), budget_s=0.12)
    assert attempt.calls == 3  # 0, 0.05, 0.10: a pause to 0.15 would pass the budget
    assert time.monotonic() - started < 1.0


class ElectingStream:
    """A connection whose stream answers "temporarily unavailable" `times`, then the key."""

    def __init__(self, times: int) -> None:
        self.times, self.requests = times, 0

    async def request(self, subject: str, payload: bytes, _deadline: float | None) -> object:
        self.requests += 1
        if self.requests <= self.times:
            return SimpleNamespace(data=json.dumps({"error": ELECTING}).encode())
        message = {"data": base64.b64encode(b"the record").decode(), "seq": 42}
        return SimpleNamespace(data=json.dumps({"message": message}).encode())


async def test_a_record_read_rides_out_a_stream_electing_its_leader() -> None:
    nc = ElectingStream(times=2)

    latest = await LatestValues(nc, "memhive_memories").get("ws.m-1")

    assert (latest.value, latest.revision, nc.requests) == (b"the record", 42, 3)


async def test_a_record_read_still_says_unavailable_once_the_budget_is_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("memhive_adapters.nats.ride_out.RETRY_PAUSES_S", ())
    nc = ElectingStream(times=100)

    with pytest.raises(JetStreamUnavailable, match="temporarily unavailable") as told:
        await LatestValues(nc, "memhive_memories").get("ws.m-1")
    assert isinstance(told.value, APIError)


async def test_a_jetstream_read_rides_out_a_stream_electing_its_leader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KV gets through nats-py (tokens, bulletins, products) read with `get_msg`."""
    answers: list[object] = [APIError(**ELECTING), APIError(**ELECTING), "the message"]

    async def get_msg(self, *args, **kwargs) -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(JetStreamContext, "get_msg", get_msg)

    assert await BusJetStream(SimpleNamespace()).get_msg("KV_tokens", subject="$KV.x") == (
        "the message"
    )
    assert answers == []
