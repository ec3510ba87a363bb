"""`memhive dead-letters list|replay`: what operators do with messages a consumer gave up on."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from memhive_cli.load_settings import instance_settings
from memhive_cli.table import format_table

if TYPE_CHECKING:
    from memhive_ports.dead_letters import DeadLetter


def register(sub) -> None:
    p = sub.add_parser("dead-letters", help="list or replay messages that could not be handled")
    dsub = p.add_subparsers(required=True, metavar="action")
    listing = dsub.add_parser("list", help="newest first, with the reason")
    listing.add_argument("--consumer", default=None, help="only this consumer's (e.g. ingest)")
    listing.add_argument("--limit", type=int, default=100)
    listing.set_defaults(command=_do_list)
    replay = dsub.add_parser(
        "replay", help="republish one to its original subject (after a fix), then drop it"
    )
    replay.add_argument("sequence", type=int, help="the SEQ column of `list`")
    replay.set_defaults(command=_do_replay)


def format_dead_letters(letters: Sequence[DeadLetter]) -> str:
    if not letters:
        return "no dead letters"
    rows = [("SEQ", "TIME", "CONSUMER", "DELIVERIES", "SUBJECT", "REASON")]
    rows += [
        (
            str(d.sequence),
            d.time.strftime("%Y-%m-%dT%H:%M:%SZ") if d.time else "-",
            d.consumer,
            str(d.deliveries),
            d.subject,
            d.reason,
        )
        for d in letters
    ]
    return format_table(rows)


async def _do_list(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.dead_letters import DeadLetters

    async with _jetstream() as js:
        letters = await DeadLetters(js).newest(args.limit, consumer=args.consumer)
        print(format_dead_letters(letters))
    return 0


async def _do_replay(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.dead_letters import DeadLetters

    async with _jetstream() as js:
        try:
            await DeadLetters(js).replay(args.sequence)
        except LookupError as exc:
            print(exc)
            return 1
    print(f"replayed dead letter {args.sequence}")
    return 0


@asynccontextmanager
async def _jetstream():
    from memhive_adapters.nats.connection import connect, ensure_streams
    from memhive_adapters.nats.credentials import bus_credentials
    from memhive_contracts.bus_permissions import ADMIN

    memhive = instance_settings()
    settings = memhive.nats
    nc = await connect(
        settings.url,
        name="memhive-cli",
        timeout_s=settings.connect_timeout_s,
        credentials=bus_credentials(memhive, ADMIN),
    )
    try:
        js = nc.jetstream()
        await ensure_streams(js, replicas=settings.replicas)
        yield js
    finally:
        await nc.close()
