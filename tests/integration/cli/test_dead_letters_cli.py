"""`memhive dead-letters list` against a real nats-server: the newest letters first, so a
small --limit shows what just failed, not what failed first."""

from __future__ import annotations

import pytest
from memhive_adapters.nats.dead_letters import DeadLetters, send_to_dead_letters
from memhive_contracts import streams
from nats.js import JetStreamContext

from memhive_cli import commands
from tests.integration.nats.consuming import subject_for, unique
from tests.unit.cli.test_dead_letters_cli import parse


@pytest.fixture(autouse=True)
def bus(bus_env: None) -> None:
    assert commands.REGISTRY


async def test_the_listing_shows_the_newest_letters_first(
    js: JetStreamContext, capsys: pytest.CaptureFixture[str]
) -> None:
    subject, durable = subject_for(unique("ws")), unique("dlq-cli")
    sub = await js.pull_subscribe(subject, durable=durable, stream=streams.LOG_STREAM)
    for n in range(3):
        await js.publish(subject, f"message {n}".encode())
    for msg in await sub.fetch(3, timeout=2):
        await send_to_dead_letters(js, msg, durable, f"failed {msg.data.decode()}")
    await sub.unsubscribe()
    oldest_first = [d.sequence for d in await DeadLetters(js).list(consumer=durable)]

    args = parse("dead-letters", "list", "--consumer", durable, "--limit", "2")
    assert await args.command(args) == 0
    printed = capsys.readouterr().out

    assert printed.index("failed message 2") < printed.index("failed message 1")
    assert "failed message 0" not in printed
    assert all(str(sequence) in printed for sequence in oldest_first[1:])
