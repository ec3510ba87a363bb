"""`memhive audit list`: operators read a workspace's audit log over the bus."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memhive_cli.load_settings import instance_settings
from memhive_cli.table import format_table

if TYPE_CHECKING:
    from memhive_domain.audit import AuditEntry


def register(sub) -> None:
    p = sub.add_parser("audit", help="who did what: the audit log")
    asub = p.add_subparsers(required=True, metavar="action")
    listing = asub.add_parser("list", help="newest first")
    listing.add_argument("--workspace", required=True)
    listing.add_argument("--action", default=None, help="e.g. save, forget, token_revoke")
    listing.add_argument("--principal", default=None, help="a user id or token:<id>")
    listing.add_argument("--target", default=None, help="a memory or token id")
    listing.add_argument("--since", default=None, help="ISO time, e.g. 2026-11-01T00:00Z")
    listing.add_argument("--until", default=None, help="ISO time")
    listing.add_argument("--limit", type=int, default=100)
    listing.set_defaults(command=_do_list)


def format_audit(entries: Sequence[AuditEntry]) -> str:
    if not entries:
        return "no audit entries"
    rows = [("TIME", "ACTION", "OUTCOME", "USER", "ROLE", "CREDENTIAL", "TARGET")]
    rows += [
        (
            e.time.strftime("%Y-%m-%dT%H:%M:%SZ"),
            e.action.value,
            e.outcome.value,
            e.user_id,
            e.role,
            e.credential,
            e.target,
        )
        for e in entries
    ]
    return format_table(rows)


async def _do_list(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.audit_log import JetStreamAuditLog
    from memhive_adapters.runtime.infrastructure import open_infrastructure
    from memhive_domain.audit import audit_query
    from memhive_domain.errors import InvalidInput

    try:
        since = datetime.fromisoformat(args.since) if args.since else None
        until = datetime.fromisoformat(args.until) if args.until else None
        query = audit_query(args.action, args.principal, args.target, since, until, args.limit)
    except (InvalidInput, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    infra = await open_infrastructure(instance_settings(), name="memhive-cli")
    try:
        page = await JetStreamAuditLog(infra.js).read(args.workspace, query)
    finally:
        await infra.close()
    print(format_audit(page.entries))
    return 0
