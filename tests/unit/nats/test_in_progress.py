from __future__ import annotations

import asyncio
import logging

import pytest
from memhive_adapters.nats.in_progress import InProgressAcks


class FakeMsg:
    def __init__(self, fails: bool = False) -> None:
        self.reports, self.fails = 0, fails

    async def in_progress(self) -> None:
        if self.fails:
            raise ConnectionError("the bus is gone")
        self.reports += 1


async def test_each_message_is_reported_at_every_interval_until_stopped() -> None:
    msgs = [FakeMsg(), FakeMsg()]
    progress = InProgressAcks(msgs, every_s=0.02)  # type: ignore[arg-type]
    await asyncio.sleep(0.11)
    await progress.stop()
    reported = [m.reports for m in msgs]
    await asyncio.sleep(0.06)

    assert all(r >= 3 for r in reported)
    assert [m.reports for m in msgs] == reported  # nothing after stop


async def test_a_batch_done_before_its_first_report_sends_none() -> None:
    msg = FakeMsg()
    await InProgressAcks([msg], every_s=0.05).stop()  # type: ignore[list-item]
    await asyncio.sleep(0.1)
    assert msg.reports == 0


async def test_a_report_that_fails_is_logged_and_the_next_is_tried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    msg = FakeMsg(fails=True)
    with caplog.at_level(logging.WARNING):
        progress = InProgressAcks([msg], every_s=0.02)  # type: ignore[list-item]
        await asyncio.sleep(0.07)
        await progress.stop()  # does not raise what a report met

    failures = [r for r in caplog.records if "in-progress acks not sent" in r.getMessage()]
    assert len(failures) >= 2
