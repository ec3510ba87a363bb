"""`memhive backup DIR` / `memhive restore DIR`: the record and the log, through NATS.

Against a running memhive they go through its NATS (online); with none running on this
data dir (embedded mode) they start a nats-server of their own on it for the duration.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memhive_cli.load_settings import instance_settings

if TYPE_CHECKING:
    from memhive_adapters.nats.backup import StreamCopy
    from memhive_settings import MemhiveSettings
    from nats.aio.client import Client


def register(sub) -> None:
    p = sub.add_parser("backup", help="copy the record and the log into a new directory")
    p.add_argument("directory", type=Path)
    p.set_defaults(command=_do_backup)
    r = sub.add_parser(
        "restore", help="recreate the record and the log from a backup (then `memhive reindex`)"
    )
    r.add_argument("directory", type=Path)
    r.add_argument("--replace", action="store_true", help="delete memhive's existing streams first")
    r.set_defaults(command=_do_restore)


async def _do_backup(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.backup import BackupError, backup

    async with _bus(instance_settings()) as nc:
        try:
            copies = await backup(nc, args.directory)
        except BackupError as exc:
            print(f"backup: {exc}", file=sys.stderr)
            return 1
    print(describe("backed up", copies, args.directory))
    return 0


async def _do_restore(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.backup import BackupError, restore

    async with _bus(instance_settings()) as nc:
        try:
            copies = await restore(nc, args.directory, replace=args.replace)
        except BackupError as exc:
            print(f"restore: {exc}", file=sys.stderr)
            return 1
    print(describe("restored", copies, args.directory))
    print("next: start memhive, then `memhive reindex` to rebuild the recall lanes")
    return 0


def describe(verb: str, copies: Sequence[StreamCopy], directory: Path) -> str:
    lines = [f"{verb} {len(copies)} streams ({directory}):"]
    lines += [f"  {c.name:<24} {c.messages:>9} messages  {c.bytes:>12} bytes" for c in copies]
    return "\n".join(lines)


@asynccontextmanager
async def _bus(settings: MemhiveSettings) -> AsyncIterator[Client]:
    from memhive_adapters.nats.connection import connect
    from memhive_adapters.nats.credentials import bus_credentials, bus_dir
    from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
    from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
    from memhive_adapters.process_lifetime import DirectoryBusy
    from memhive_contracts.bus_permissions import ADMIN

    from memhive_cli.data_dir import data_dir_lock, nats_port

    async with AsyncExitStack() as stack:
        if settings.nats.embedded:
            try:
                stack.enter_context(data_dir_lock(settings))
            except DirectoryBusy:
                pass  # memhive runs on this data dir: use its NATS
            else:
                server = EmbeddedNatsServer(
                    settings.nats_store_dir,
                    port=nats_port(settings),
                    config_file=EmbeddedBusAuth(bus_dir(settings)).ensure(),
                )
                await stack.enter_async_context(server)
        nc = await connect(
            settings.nats.url,
            name="memhive-backup",
            timeout_s=settings.nats.connect_timeout_s,
            credentials=bus_credentials(settings, ADMIN),
        )
        stack.push_async_callback(nc.close)
        yield nc
