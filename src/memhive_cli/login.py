"""`memhive login` / `logout`: keep a token for the CLI's memory commands (`token_store.py`),
so a shell needs no MEMHIVE_TOKEN. The token is checked against the gateway first."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from memhive_cli.gateway_access import gateway_url
from memhive_cli.token_store import StoredToken, credentials_path, forget_token, store_token


def register(sub) -> None:
    p = sub.add_parser("login", help="keep a token for save, recall, get, list, forget and mcp")
    p.add_argument(
        "--token", default=None, help="the token (may start with '-'); none: asked for, or stdin"
    )
    p.set_defaults(command=_do_login)
    out = sub.add_parser("logout", help="forget the token `memhive login` kept")
    out.set_defaults(command=_do_logout)


async def _do_login(args: argparse.Namespace) -> int:
    token = (args.token or _read_token()).strip()
    if not token:
        print("memhive: no token given", file=sys.stderr)
        return 2
    url = gateway_url(os.environ)
    checked = await _check(url, token)
    if checked is False:
        print(f"memhive: {url} refused this token; nothing kept", file=sys.stderr)
        return 1
    path = store_token(StoredToken(token, url), os.environ)
    if checked is None:
        print(f"memhive: could not reach {url} to check the token; kept it anyway",
              file=sys.stderr)  # fmt: skip
    print(f"token kept in {path} (mode 0600); MEMHIVE_TOKEN, when set, still wins")
    return 0


async def _do_logout(args: argparse.Namespace) -> int:
    path = credentials_path(os.environ)
    print(f"removed {path}" if forget_token(os.environ) else f"no token kept ({path})")
    return 0


def _read_token() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("memhive token: ")
    return sys.stdin.readline()


async def _check(url: str, token: str) -> bool | None:
    """True: the gateway accepts it; False: refused; None: the gateway could not say."""
    import httpx
    from memhive_client import AsyncMemhiveClient, RetryPolicy, Unauthorized, Unavailable

    try:
        retry = RetryPolicy(attempts=2)  # over httpx: gateway_client says why
        async with AsyncMemhiveClient(url, token, retry=retry, sender="httpx") as api:
            await api.products()  # any token may read the products it can see
    except Unauthorized:
        return False
    except (Unavailable, httpx.TransportError):
        return None
    return True
