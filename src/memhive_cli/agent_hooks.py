"""`memhive hook claude-code`: what Claude Code's `command` hooks call (the only kind it runs at
SessionStart). It hands the hook's input (JSON on stdin) to the gateway, which answers it
(`POST /v1/hooks/claude-code`: a session's opening pack, a prompt's memories, what each
session was shown), and prints the answer for Claude Code to add to what the model reads.

A hook must never stand in the agent's way. memhive down or slower than `--timeout`: exit 0,
nothing on stdout, one line on stderr. Anything the user should fix (no token, a refused
option, a bad input): exit 1, which Claude Code reports without stopping. Never exit 2:
Claude Code would block the prompt (main.py answers a usage error of this command with 1).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from memhive_cli.auto_memory import share_auto_memory
from memhive_cli.gateway_access import NoToken, bearer_token, gateway_url
from memhive_cli.hook_request import HookRefused, Unreachable, post_json

AGENTS = ("claude-code",)
MAX_INPUT_BYTES = 8 * 1024 * 1024  # a pasted prompt may be long; a hook's input is not more
# What is sent of a prompt: its first 2,000 visible characters make the query, and the
# gateway takes 128 KiB bodies.
PROMPT_CHARS_SENT = 16_000
MAX_TIMEOUT_S = 120.0
DEFAULT_TIMEOUT_S, SHARING_TIMEOUT_S = 5.0, 30.0
SESSION_END = "SessionEnd"
HOOK_PATH = "/v1/hooks/claude-code"
BUSY = frozenset({429, 500, 502, 503, 504, 507})  # memhive's trouble: exit 0, as when down


class HookInputError(ValueError):
    """The hook's input is not an event of Claude Code's."""


def register(sub) -> None:
    p = sub.add_parser(
        "hook",
        help="what an agent's hooks call: memories added to its context (Claude Code)",
        description="Reads the hook's input (JSON) on stdin; prints the context to add.",
    )
    p.add_argument("agent", choices=AGENTS)
    p.add_argument("--product", default=None, help="a product id, e.g. ios")
    p.add_argument("--scope-path", default=None, help="a node, e.g. product:ios/team:mobile")
    p.add_argument("--budget", type=int, default=None, help="a session's opening pack: tokens")
    p.add_argument("--limit", type=int, default=None, help="memories added to a prompt at most")
    p.add_argument("--min-confidence", type=float, default=None, help="a prompt's memories: 0..1")
    p.add_argument(
        "--share-auto-memory",
        action="store_true",
        help="at SessionEnd, import Claude Code's auto memory of the project (its project "
        "and reference memories) into the node",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        help="seconds, then nothing is added (default 5; 30 to share at SessionEnd)",
    )
    p.set_defaults(command=_do_hook)


def _seconds(value: str) -> float:
    seconds = float(value)
    if not 0 < seconds <= MAX_TIMEOUT_S:  # NaN too
        raise argparse.ArgumentTypeError(f"between 0 and {MAX_TIMEOUT_S:g} seconds")
    return seconds


def is_hook_call(argv: Sequence[str]) -> bool:
    """A `memhive hook` command line, so that main answers its usage errors with exit 1."""
    return "hook" in [a for a in argv if not a.startswith("-")][:1]


async def _do_hook(args: argparse.Namespace) -> int:
    options = {
        name: value
        for name, value in (
            ("product_id", args.product),
            ("scope_path", args.scope_path),
            ("budget", args.budget),
            ("limit", args.limit),
            ("min_confidence", args.min_confidence),
        )
        if value is not None
    }
    timeout, nothing = args.timeout or DEFAULT_TIMEOUT_S, "nothing added"
    try:
        event = read_event(sys.stdin.buffer)
        url, token = gateway_url(os.environ), bearer_token(os.environ)
        if event["hook_event_name"] == SESSION_END and args.share_auto_memory:
            timeout, nothing = args.timeout or SHARING_TIMEOUT_S, "nothing shared"
            shared = share_auto_memory(event, _node(args), url=url, token=token, timeout_s=timeout)
            return _say(shared, 0)
        answer = post_json(url, HOOK_PATH, token=token, params=options, body=event,
                           timeout_s=timeout)  # fmt: skip
    except HookInputError as bad:
        return _say(f"not a Claude Code hook event ({bad})", 1)
    except TimeoutError:
        return _say(f"memhive did not answer within {timeout:g} s; {nothing}", 0)
    except Unreachable as down:
        return _say(f"cannot reach memhive at {url} ({down}); is `memhive run` up? {nothing}", 0)
    except HookRefused as refused:  # 429 and 5xx: memhive's trouble, not the user's to fix
        hint = (
            " (check MEMHIVE_TOKEN, or run `memhive login` again)" if refused.status == 401 else ""
        )
        return _say(f"{refused}{hint}; {nothing}", 0 if refused.status in BUSY else 1)
    except NoToken as missing:
        return _say(str(missing), 1)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the session goes on
        return _say(f"{type(exc).__name__}: {exc}; {nothing}", 1)
    if answer:
        print(json.dumps(answer))
    return 0


def read_event(stream: IO[bytes]) -> dict[str, Any]:
    """The hook's input, its prompt cut to what the gateway reads of it."""
    raw = stream.read(MAX_INPUT_BYTES + 1)
    if len(raw) > MAX_INPUT_BYTES:
        raise HookInputError(f"more than {MAX_INPUT_BYTES} bytes")
    try:
        event = json.loads(raw)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise HookInputError(f"not JSON: {exc}") from None
    if not isinstance(event, dict):
        raise HookInputError("not a JSON object")
    if not isinstance(event.get("hook_event_name"), str):
        raise HookInputError("hook_event_name is missing or not a string")
    if isinstance(prompt := event.get("prompt"), str):
        event["prompt"] = prompt[:PROMPT_CHARS_SENT]
    return event


def _node(args: argparse.Namespace) -> str | None:
    """The node to import into (the import names a node by its path only)."""
    from memhive_domain.scopes import Scope, ScopeRef

    return args.scope_path or (ScopeRef(Scope.PRODUCT, args.product).key if args.product else None)


def _say(line: str, code: int) -> int:
    print(f"memhive hook: {line}", file=sys.stderr)
    return code
