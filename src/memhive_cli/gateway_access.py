"""Which gateway and which token the CLI's HTTP commands (save, recall, get, list, forget,
login, mcp) use, and what they print when the gateway says no.

The gateway: MEMHIVE_URL, else the running instance's (`instance.find_instance`), else
http://127.0.0.1:8080. The token: MEMHIVE_TOKEN, else the one `memhive login` stored.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from memhive_cli.instance import find_instance
from memhive_cli.load_settings import verbose
from memhive_cli.token_store import stored_token

if TYPE_CHECKING:
    import httpx
    from memhive_client import AsyncMemhiveClient

DEFAULT_URL = "http://127.0.0.1:8080"
NO_TOKEN = (
    "no token: set MEMHIVE_TOKEN, or run `memhive login` once "
    "(`memhive run` printed the dev workspace's token)"
)


class NoToken(RuntimeError):
    pass


def gateway_url(environ: Mapping[str, str]) -> str:
    if environ.get("MEMHIVE_URL"):
        verbose.info("gateway %s (MEMHIVE_URL)", environ["MEMHIVE_URL"])
        return environ["MEMHIVE_URL"]
    found = find_instance(environ)
    if found is None:
        verbose.info("no running memhive found; gateway %s (the default)", DEFAULT_URL)
        return DEFAULT_URL
    verbose.info("talking to %s", found.describe())
    return found.http_url


def bearer_token(environ: Mapping[str, str]) -> str:
    if environ.get("MEMHIVE_TOKEN"):
        verbose.info("token from MEMHIVE_TOKEN")
        return environ["MEMHIVE_TOKEN"]
    stored = stored_token(environ)
    if stored is None:
        raise NoToken(NO_TOKEN)
    verbose.info("token from `memhive login` (checked against %s)", stored.url)
    return stored.token


def gateway_client(environ: Mapping[str, str]) -> AsyncMemhiveClient:
    """Over httpx, not the client's default aiohttp: a command sends a request or two, and
    importing aiohttp (~0.19 s) costs more than the ~0.7 ms of CPU it saves a request."""
    from memhive_client import AsyncMemhiveClient

    return AsyncMemhiveClient(gateway_url(environ), bearer_token(environ), sender="httpx")


def gateway_http(
    environ: Mapping[str, str], *, url: str | None = None, token: str | None = None
) -> httpx.AsyncClient:
    """Plain HTTP to the gateway with the bearer token, for what the client has no call for
    (import and export stream lines). Raises NoToken."""
    import httpx

    headers = {"Authorization": f"Bearer {token or bearer_token(environ)}"}
    return httpx.AsyncClient(
        base_url=url or gateway_url(environ), headers=headers, timeout=httpx.Timeout(60, read=None)
    )


def client_failures() -> tuple[type[BaseException], ...]:
    import httpx
    from memhive_client import MemhiveError

    return (MemhiveError, httpx.TransportError, NoToken)


def report_client_failure(exc: BaseException) -> int:
    """One line on stderr; exit code 2 when memhive cannot be reached or no token is set."""
    import httpx
    from memhive_client import Conflict, InvalidRequest, Unauthorized

    if isinstance(exc, httpx.TransportError):
        reason = str(exc) or type(exc).__name__
        print(f"memhive: cannot reach memhive{_at(exc)} ({reason}); is `memhive run` up?",
              file=sys.stderr)  # fmt: skip
        return 2
    if isinstance(exc, NoToken):
        print(f"memhive: {exc}", file=sys.stderr)
        return 2
    print(f"memhive: {_refusal(exc)}", file=sys.stderr)
    if isinstance(exc, Unauthorized):
        print("  (check MEMHIVE_TOKEN, or run `memhive login` again)", file=sys.stderr)
    if isinstance(exc, Conflict):
        for similar in exc.similar:
            print(f"  {similar.get('id')}  {similar.get('body', '')[:100]}", file=sys.stderr)
        print("  save it anyway with --force, or replace them with --supersedes ID",
              file=sys.stderr)  # fmt: skip
    return 2 if isinstance(exc, InvalidRequest) else 1


def _at(exc) -> str:
    try:
        return f" at {exc.request.url.scheme}://{exc.request.url.netloc.decode()}"
    except RuntimeError:  # an error raised before any request was made
        return ""


def _refusal(exc) -> str:
    problems = "; ".join(f"{p.field}: {p.message}" for p in getattr(exc, "problems", []))
    return f"{exc.detail} ({problems})" if problems else f"{exc.detail} (HTTP {exc.status})"
