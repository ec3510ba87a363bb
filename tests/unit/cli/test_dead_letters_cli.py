"""`memhive dead-letters`: the arguments it takes and the table it prints."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from memhive_ports.dead_letters import DeadLetter

from memhive_cli import commands
from memhive_cli.dead_letters import format_dead_letters


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="memhive")
    sub = parser.add_subparsers(required=True)
    for register in commands.REGISTRY:
        register(sub)
    return parser.parse_args(argv)


def letter(sequence: int, reason: str) -> DeadLetter:
    return DeadLetter(
        sequence=sequence,
        consumer="ingest-upstream",
        subject="memhive.upstream.job.completed.acme",
        reason=reason,
        deliveries=1,
        payload=b"",
        time=datetime(2025, 3, 1, 9, 30, tzinfo=UTC),
        headers={},
    )


def test_list_and_replay_take_their_arguments() -> None:
    listing = parse("dead-letters", "list", "--consumer", "ingest", "--limit", "5")
    assert (listing.consumer, listing.limit) == ("ingest", 5)
    assert parse("dead-letters", "list").limit == 100
    assert parse("dead-letters", "replay", "42").sequence == 42


def test_the_table_has_one_row_per_letter_with_its_reason() -> None:
    table = format_dead_letters(
        [letter(7, "InvalidInput: outcome: unknown value 0"), letter(12, "x")]
    )
    header, first, second = table.splitlines()
    assert header.split() == ["SEQ", "TIME", "CONSUMER", "DELIVERIES", "SUBJECT", "REASON"]
    assert first.split()[:5] == [
        "7",
        "2025-03-01T09:30:00Z",
        "ingest-upstream",
        "1",
        "memhive.upstream.job.completed.acme",
    ]
    assert first.endswith("InvalidInput: outcome: unknown value 0")
    assert second.split()[0] == "12"


def test_no_letters_says_so() -> None:
    assert format_dead_letters([]) == "no dead letters"
