"""Subcommands of `memhive`. Each registers its arguments and an async entry point."""

from __future__ import annotations

import argparse

from memhive_cli import (
    agent_hooks,
    audit,
    backup,
    bus,
    dead_letters,
    exchange,
    login,
    memories,
    probe,
    reindex,
    tokens,
)
from memhive_cli.garbage_collection import collect_for_a_server
from memhive_cli.load_settings import load_settings


def _run(sub) -> None:
    p = sub.add_parser("run", help="start the whole system on this machine (embedded default)")
    p.set_defaults(command=_do_run)


async def _do_run(args: argparse.Namespace) -> None:
    collect_for_a_server()  # first: the process is a server from its first import
    from memhive_adapters.runtime.model_check import check_models

    from memhive_cli.data_dir import data_dir_lock

    settings = load_settings()
    check_models(settings)  # a model that cannot be found stops it before anything starts
    # Then, before the heavy imports: a second `memhive run` on this data dir stops here,
    # at once, before it touches the nats-server or the lanes of the one that is running.
    with data_dir_lock(settings):
        from memhive_cli.embedded import run_embedded

        await run_embedded(settings)


def _serve(sub) -> None:
    from memhive_cli.services import SERVICES

    p = sub.add_parser("serve", help="run one service (distributed mode)")
    p.add_argument("service", choices=SERVICES)
    p.set_defaults(command=_do_serve)


async def _do_serve(args: argparse.Namespace) -> None:
    collect_for_a_server()  # first: the process is a server from its first import
    from memhive_cli.serve import serve

    await serve(args.service, load_settings())


def _mcp(sub) -> None:
    p = sub.add_parser(
        "mcp", help="serve memhive's MCP tools over stdio (for clients that launch a command)"
    )
    p.add_argument(
        "--url", default=None, help="gateway URL (or MEMHIVE_URL; default: the running memhive)"
    )
    p.add_argument(
        "--token",
        default=None,
        help="bearer token (or MEMHIVE_TOKEN, or `memhive login`'s); may start with '-'",
    )
    p.set_defaults(command=_do_mcp)


async def _do_mcp(args: argparse.Namespace) -> int:
    import os
    import sys

    from memhive_query.mcp.stdio import serve_stdio

    from memhive_cli.gateway_access import NoToken, bearer_token, gateway_url

    try:
        token = args.token or bearer_token(os.environ)
    except NoToken as missing:
        print(f"memhive: {missing}", file=sys.stderr)
        return 2
    await serve_stdio(args.url or gateway_url(os.environ), token)
    return 0


REGISTRY = [
    _run,
    _serve,
    memories.register,
    login.register,
    tokens.register,
    _mcp,
    dead_letters.register,
    reindex.register,
    backup.register,
    audit.register,
    bus.register_hook_credentials,
    bus.register_declare_streams,
    probe.register,
    exchange.register,
    agent_hooks.register,
]
