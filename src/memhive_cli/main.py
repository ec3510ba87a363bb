"""The `memhive` command."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=os.environ.get("MEMHIVE_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return asyncio.run(args.command(args)) or 0
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    from memhive_cli import commands

    parser = argparse.ArgumentParser(
        prog="memhive", description="Shared long-term memory for AI agents"
    )
    sub = parser.add_subparsers(required=True, metavar="command")
    for register in commands.REGISTRY:
        register(sub)
    return parser


if __name__ == "__main__":
    sys.exit(main())
