"""Subcommands of `memhive`. Each registers its arguments and an async entry point."""

from __future__ import annotations

import argparse

from memhive_settings import MemhiveSettings

from memhive_cli import dead_letters, probe, reindex


def _run(sub) -> None:
    p = sub.add_parser("run", help="start the whole system on this machine (embedded default)")
    p.set_defaults(command=_do_run)


async def _do_run(args: argparse.Namespace) -> None:
    from memhive_cli.embedded import run_embedded

    await run_embedded(MemhiveSettings())


def _serve(sub) -> None:
    from memhive_cli.serve import SERVICES

    p = sub.add_parser("serve", help="run one service (distributed mode)")
    p.add_argument("service", choices=SERVICES)
    p.set_defaults(command=_do_serve)


async def _do_serve(args: argparse.Namespace) -> None:
    from memhive_cli.serve import serve

    await serve(args.service, MemhiveSettings())


def _token(sub) -> None:
    p = sub.add_parser("token", help="manage bearer tokens")
    tsub = p.add_subparsers(required=True, metavar="action")
    create = tsub.add_parser("create", help="issue a token for a workspace user")
    create.add_argument("--workspace", required=True)
    create.add_argument("--user", required=True)
    create.add_argument(
        "--read-only", action="store_true", help="not a member: sees public memories only"
    )
    create.set_defaults(command=_do_token_create)


async def _do_token_create(args: argparse.Namespace) -> int:
    from memhive_adapters.runtime.infrastructure import open_infrastructure
    from memhive_domain.principals import (
        Principal,
        is_valid_user_id,
        is_valid_workspace_id,
        member_or_viewer,
    )

    if not (is_valid_workspace_id(args.workspace) and is_valid_user_id(args.user)):
        print("workspace: 1-64 of a-z 0-9 _ -; user: 1-128 of letters, digits . _ @ : -")
        return 2
    infra = await open_infrastructure(MemhiveSettings(), name="memhive-cli")
    try:
        principal = Principal(args.workspace, args.user, member_or_viewer(not args.read_only))
        print(await infra.tokens.issue(principal))
    finally:
        await infra.close()
    return 0


def _mcp(sub) -> None:
    p = sub.add_parser(
        "mcp", help="serve memhive's MCP tools over stdio (for clients that launch a command)"
    )
    p.add_argument("--url", default=None, help="gateway URL (or MEMHIVE_URL)")
    p.add_argument("--token", default=None, help="bearer token (or MEMHIVE_TOKEN)")
    p.set_defaults(command=_do_mcp)


async def _do_mcp(args: argparse.Namespace) -> int:
    import os

    from memhive_query.mcp.stdio import serve_stdio

    url = args.url or os.environ.get("MEMHIVE_URL", "http://127.0.0.1:8080")
    token = args.token or os.environ.get("MEMHIVE_TOKEN")
    if not token:
        print("a token is required: --token or MEMHIVE_TOKEN")
        return 2
    await serve_stdio(url, token)
    return 0


REGISTRY = [_run, _serve, _token, _mcp, dead_letters.register, reindex.register, probe.register]
