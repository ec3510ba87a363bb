"""BusLiveness: a timeout asks the bus whether it answers; a stalled bus refuses at once and
is asked again until it answers (a probe stands in for the server)."""

from __future__ import annotations

import asyncio

import pytest
from memhive_adapters.nats.bus_liveness import BusLiveness
from memhive_adapters.nats.unavailable import BusStalled
from memhive_ports import BusUnavailable

from tests.waiting import until

DEADLINE_S, INTERVAL_S = 0.05, 0.02


class Server:
    """Answers probes unless stopped (a stopped server lets each probe run out)."""

    def __init__(self) -> None:
        self.stopped = False
        self.probes = 0

    async def probe(self, deadline_s: float) -> None:
        self.probes += 1
        if self.stopped:
            await asyncio.sleep(deadline_s)
            raise TimeoutError


def liveness(server: Server) -> BusLiveness:
    return BusLiveness(server.probe, deadline_s=DEADLINE_S, interval_s=INTERVAL_S, fresh_s=10)


async def test_a_timeout_on_an_answering_bus_changes_nothing() -> None:
    server = Server()
    bus = liveness(server)
    bus.unanswered()
    await until(lambda: not bus.suspect)
    assert server.probes == 1 and not bus.stalled
    bus.raise_if_stalled()


async def test_a_stalled_bus_refuses_at_once_until_a_probe_is_answered() -> None:
    server = Server()
    bus = liveness(server)
    server.stopped = True
    bus.unanswered()
    await until(lambda: bus.stalled)
    with pytest.raises(BusStalled, match="the bus has not answered for") as refused:
        bus.raise_if_stalled()
    assert isinstance(refused.value, BusUnavailable) and isinstance(refused.value, TimeoutError)
    assert not await bus.answering()

    server.stopped = False
    await until(lambda: not bus.stalled)
    assert await bus.answering()
    await bus.close()


async def test_a_call_made_while_the_probe_is_out_ends_when_it_finds_a_stall() -> None:
    server = Server()
    bus = liveness(server)
    server.stopped = True
    bus.unanswered()
    assert bus.suspect
    never_answered = asyncio.get_running_loop().create_future()
    with pytest.raises(BusStalled):
        await bus.bounded(never_answered)
    assert never_answered.cancelled()
    await bus.close()


async def test_a_call_made_while_the_probe_is_out_completes_when_the_bus_answers() -> None:
    server = Server()
    bus = liveness(server)
    bus.unanswered()
    assert await bus.bounded(asyncio.sleep(DEADLINE_S * 2, result="answer")) == "answer"


async def test_readiness_asks_at_most_once_while_an_answer_is_fresh() -> None:
    server = Server()
    bus = liveness(server)
    assert await bus.answering()
    assert await bus.answering()
    assert server.probes == 1
    bus.answered()  # any answered request counts as fresh
    assert await bus.answering()
    assert server.probes == 1


async def test_readiness_says_not_answering_within_one_probe_deadline() -> None:
    server = Server()
    bus = BusLiveness(server.probe, deadline_s=DEADLINE_S, interval_s=INTERVAL_S, fresh_s=0)
    server.stopped = True
    async with asyncio.timeout(DEADLINE_S * 10):
        assert not await bus.answering()
    assert bus.stalled
    await bus.close()


async def test_each_stall_calls_every_stall_callback_once() -> None:
    server = Server()
    bus = liveness(server)
    calls: list[str] = []
    bus.on_stall(lambda: calls.append("first"))
    bus.on_stall(lambda: 1 / 0)  # a broken listener keeps the stall from no one
    bus.on_stall(lambda: calls.append("last"))
    server.stopped = True
    bus.unanswered()
    await until(lambda: bus.stalled)
    assert calls == ["first", "last"]
    server.stopped = False
    await until(lambda: not bus.stalled)
    server.stopped = True
    bus.unanswered()
    await until(lambda: bus.stalled)
    assert calls == ["first", "last"] * 2
    await bus.close()


async def test_a_closed_connection_sends_no_more_probes() -> None:
    server = Server()
    bus = liveness(server)
    await bus.close()
    bus.unanswered()
    assert not bus.suspect and server.probes == 0
    assert not await bus.answering()


async def test_a_cancelled_caller_cancels_its_call() -> None:
    server = Server()
    server.stopped = True
    bus = liveness(server)
    bus.unanswered()
    call = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(bus.bounded(call))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert call.cancelled()
    await bus.close()


async def test_a_request_unanswered_for_slow_s_asks_the_bus_and_an_answered_one_does_not() -> None:
    server = Server()
    bus = BusLiveness(server.probe, deadline_s=DEADLINE_S, interval_s=INTERVAL_S, slow_s=0.05)
    quick = bus.sent()
    bus.settled(quick)
    await asyncio.sleep(0.1)
    assert server.probes == 0
    bus.sent()  # never answered
    await until(lambda: server.probes == 1)
    server.stopped = True
    await until(lambda: bus.stalled)  # the watch keeps asking while it is unanswered
    await bus.close()
