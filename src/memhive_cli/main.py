"""The `memhive` command.

Start-up stays light: a command imports what it needs inside its own function, so
`memhive --help` or `memhive token create` never loads the model, the engines or litellm.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

from memhive_adapters.private_files import PRIVATE_UMASK

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Options whose values may start with "-" (a token is opaque): `--token -x` is read as
# `--token=-x`, which argparse would otherwise refuse as a missing value.
OPAQUE_VALUE_OPTIONS = ("--token",)
VERBOSE = "--verbose"


def main(argv: Sequence[str] | None = None) -> int:
    os.umask(PRIVATE_UMASK)  # what memhive and its children create is its user's alone
    given = attach_opaque_values(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(verbose_first(given))
    except SystemExit as usage:
        from memhive_cli.agent_hooks import is_hook_call

        if usage.code == 2 and is_hook_call(given):
            return 1  # an agent's hook: 2 would block its prompt (agent_hooks.py)
        raise
    logging.basicConfig(
        level=os.environ.get("MEMHIVE_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    _say_what_verbose_says(args.verbose)
    from memhive_cli.failures import expected_failures, report
    from memhive_cli.lean_bus_client import hide_websocket_transport

    hide_websocket_transport(args.command.__module__)
    try:
        return asyncio.run(args.command(args)) or 0
    except KeyboardInterrupt:
        return 130
    except expected_failures() as exc:
        return report(exc)


def attach_opaque_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    items = iter(argv)
    for arg in items:
        if arg == "--":
            out += [arg, *items]
            break
        value = next(items, None) if arg in OPAQUE_VALUE_OPTIONS else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def verbose_first(argv: Sequence[str]) -> list[str]:
    """`--verbose` anywhere before `--` (`memhive recall q --verbose` reads naturally) moves
    in front of the command, where the one parser that knows it reads it."""
    end = argv.index("--") if "--" in argv else len(argv)
    flags = [a for a in argv[:end] if a == VERBOSE]
    return [*flags, *(a for a in argv[:end] if a != VERBOSE), *argv[end:]]


def _say_what_verbose_says(verbose: bool) -> None:
    """`--verbose`: which instance, gateway and token a command uses, one plain line each."""
    from memhive_cli.load_settings import verbose as said

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("memhive: %(message)s"))
    said.addHandler(handler)
    said.propagate = False
    said.setLevel(logging.INFO if verbose else logging.WARNING)


def _parser() -> argparse.ArgumentParser:
    from memhive_cli import commands

    parser = argparse.ArgumentParser(
        prog="memhive", description="Shared long-term memory for AI agents"
    )
    parser.add_argument(
        VERBOSE, action="store_true", help="say which memhive instance a command talks to"
    )
    sub = parser.add_subparsers(required=True, metavar="command")
    for register in commands.REGISTRY:
        register(sub)
    return parser


if __name__ == "__main__":
    sys.exit(main())
