"""`memhive token create|list|revoke|rotate`: operators manage tokens over the bus.

The operator acts as an admin of the token's workspace ("cli" in the audit log); a token
is printed once, alone on stdout, so scripts can capture it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING

from memhive_cli.load_settings import instance_settings
from memhive_cli.operator import operator, operator_trail
from memhive_cli.table import format_table

if TYPE_CHECKING:
    from memhive_domain.tokens import TokenRecord

ROLES = ("admin", "member", "agent", "viewer")


def register(sub) -> None:
    p = sub.add_parser("token", help="manage bearer tokens (agents, hooks)")
    tsub = p.add_subparsers(required=True, metavar="action")
    create = tsub.add_parser("create", help="issue a token for a workspace user or agent")
    create.add_argument("--workspace", required=True)
    create.add_argument("--user", required=True)
    create.add_argument("--role", choices=ROLES, default=None, help="default: member")
    create.add_argument(
        "--read-only", action="store_true", help="same as --role viewer: public memories only"
    )
    create.add_argument("--name", default="", help="what it is for, e.g. 'ci hook'")
    create.add_argument("--home", default="global", help="its node in the scope tree")
    create.add_argument("--acting-for", default=None, help="the user an agent acts for")
    expiry = create.add_mutually_exclusive_group()
    expiry.add_argument("--expires-in", default=None, help="e.g. 30d, 12h, 45m; default: never")
    expiry.add_argument("--expires-at", default=None, help="ISO time, e.g. 2027-01-01T00:00Z")
    create.set_defaults(command=_do_create)
    listing = tsub.add_parser("list", help="tokens and their metadata (never a secret)")
    listing.add_argument("--workspace", default=None)
    listing.set_defaults(command=_do_list)
    revoke = tsub.add_parser("revoke", help="refuse the token from now on (every replica)")
    revoke.add_argument("id", help="the ID column of `list`")
    revoke.set_defaults(command=_do_revoke)
    rotate = tsub.add_parser("rotate", help="a new secret, same id and metadata")
    rotate.add_argument("id")
    rotate.add_argument("--grace", default=None, help="old secret keeps working this long")
    rotate.set_defaults(command=_do_rotate)


def role_of(args: argparse.Namespace) -> str:
    if args.read_only and args.role not in (None, "viewer"):
        raise ValueError("--read-only is --role viewer; give one of them")
    return "viewer" if args.read_only else args.role or "member"


def format_tokens(records: Sequence[TokenRecord]) -> str:
    if not records:
        return "no tokens"
    rows = [("ID", "WORKSPACE", "USER", "ROLE", "HOME", "EXPIRES", "CREATED", "NAME")]
    rows += [
        (
            r.id,
            r.workspace_id,
            r.user_id,
            r.role.value,
            r.home,
            _when(r.expires_at, "never"),
            _when(r.created_at, "-"),
            r.name,
        )
        for r in records
    ]
    return format_table(rows)


async def _do_create(args: argparse.Namespace) -> int:
    from memhive_domain.errors import InvalidInput
    from memhive_domain.principals import Role
    from memhive_domain.tokens import TokenDraft, expiry

    async with _admin() as (admin, infra):
        try:
            at = datetime.fromisoformat(args.expires_at) if args.expires_at else None
            draft = TokenDraft(
                workspace_id=args.workspace,
                user_id=args.user,
                role=Role(role_of(args)),
                name=args.name,
                home=args.home,
                acting_for=args.acting_for,
                expires_at=expiry(infra.clock.now(), args.expires_in, at),
            )
            record, token = await admin.create(operator(args.workspace), draft)
        except (InvalidInput, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 2
    print(f"token {record.id} ({record.role.value} of {record.workspace_id})", file=sys.stderr)
    print(token)
    return 0


async def _do_list(args: argparse.Namespace) -> int:
    from memhive_adapters.runtime.infrastructure import open_infrastructure

    infra = await open_infrastructure(instance_settings(), name="memhive-cli")
    try:
        print(format_tokens(await infra.tokens.list(args.workspace)))
    finally:
        await infra.close()
    return 0


async def _do_revoke(args: argparse.Namespace) -> int:
    return await _on_token(args, rotate=False)


async def _do_rotate(args: argparse.Namespace) -> int:
    return await _on_token(args, rotate=True)


async def _on_token(args: argparse.Namespace, *, rotate: bool) -> int:
    from memhive_domain.errors import InvalidInput, NotFound

    async with _admin() as (admin, infra):
        record = await infra.tokens.get(args.id)
        if record is None:
            print(f"no token {args.id!r}", file=sys.stderr)
            return 1
        acting = operator(record.workspace_id)
        try:
            if not rotate:
                await admin.revoke(acting, args.id)
                print(f"revoked token {args.id}")
                return 0
            rotated, token = await admin.rotate(acting, args.id, args.grace)
        except (InvalidInput, NotFound) as exc:
            print(exc, file=sys.stderr)
            return 2
    print(f"rotated token {args.id} (now {rotated.id})", file=sys.stderr)
    print(token)
    return 0


@asynccontextmanager
async def _admin():
    from memhive_adapters.runtime.infrastructure import open_infrastructure
    from memhive_application.tokens import TokenAdmin

    infra = await open_infrastructure(instance_settings(), name="memhive-cli")
    try:
        yield TokenAdmin(infra.tokens, operator_trail(infra.js), infra.clock), infra
    finally:
        await infra.close()


def _when(moment: datetime | None, default: str) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else default
