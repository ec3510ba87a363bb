"""`memhive probe [live|ready]`: the container healthcheck (exit 0 when the service on this
machine's MEMHIVE_HTTP_PORT answers /healthz or /readyz with 200; without that variable, the
running `memhive run`'s). No curl in a slim image."""

from __future__ import annotations

import argparse
import os
import urllib.error
import urllib.request

PATHS = {"live": "/healthz", "ready": "/readyz"}


def register(sub) -> None:
    p = sub.add_parser("probe", help="exit 0 if this machine's memhive service is live/ready")
    p.add_argument("check", choices=sorted(PATHS), nargs="?", default="ready")
    p.add_argument("--timeout", type=float, default=3.0)
    p.set_defaults(command=_do_probe)


async def _do_probe(args: argparse.Namespace) -> int:
    return probe(args.check, _where(), args.timeout)


def _where() -> int | str:
    """MEMHIVE_HTTP_PORT (a container's service), else the running `memhive run`'s URL."""
    if "MEMHIVE_HTTP_PORT" in os.environ:
        return int(os.environ["MEMHIVE_HTTP_PORT"])
    from memhive_cli.instance import find_instance

    found = find_instance(os.environ)
    return found.http_url if found is not None else 8080


def probe(check: str, where: int | str, timeout_s: float) -> int:
    """`where`: a port on this machine, or a base URL."""
    base = f"http://127.0.0.1:{where}" if isinstance(where, int) else where
    url = f"{base}{PATHS[check]}"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as answer:
            return 0 if answer.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"{url}: {exc}")
        return 1
