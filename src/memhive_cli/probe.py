"""`memhive probe [live|ready]`: the container healthcheck (exit 0 when the service on this
machine's MEMHIVE_HTTP_PORT answers /healthz or /readyz with 200). No curl in a slim image."""

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
    return probe(args.check, int(os.environ.get("MEMHIVE_HTTP_PORT", "8080")), args.timeout)


def probe(check: str, port: int, timeout_s: float) -> int:
    url = f"http://127.0.0.1:{port}{PATHS[check]}"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as answer:
            return 0 if answer.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"{url}: {exc}")
        return 1
