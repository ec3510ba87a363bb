"""An agent hook's requests to the gateway, on the standard library's `urllib`.

A hook is a new process at every session's start, so its start-up is what the agent waits
for: importing httpx and the memhive client's models took ~0.35 s of the command's ~0.7 s,
and `urllib.request` is imported by every command already (`probe.py`). One attempt, no
retry (agent_hooks.py says why).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from http.client import HTTPException, responses
from typing import Any
from urllib.parse import urlencode, urlsplit

MAX_ANSWER_BYTES = 1024 * 1024  # a hook's answer stays under 10,000 characters; an import's
# report of one file is a line per memory in it


class HookRefused(Exception):
    """The gateway answered with an error status; the message is its `detail` (and, for a
    422, the fields it names)."""

    def __init__(self, status: int, body: object) -> None:
        self.status = status
        detail = body.get("detail") if isinstance(body, dict) else None
        problems = body.get("problems") if isinstance(body, dict) else None
        named = "; ".join(
            f"{p.get('field', '')}: {p.get('message', '')}"
            for p in (problems if isinstance(problems, list) else [])
            if isinstance(p, dict)
        )
        reason = str(detail) if detail else responses.get(status, "refused")
        super().__init__(f"{reason} ({named or f'HTTP {status}'})")


class Unreachable(Exception):
    """Nothing answered at the gateway's address (refused, unknown host, cut off)."""


def post_json(
    base_url: str,
    path: str,
    *,
    token: str,
    params: dict[str, Any],
    body: dict[str, Any],
    timeout_s: float,
) -> dict[str, Any]:
    """POST `body` as JSON; the answer, which must be one JSON object (else ValueError)."""
    raw = post(base_url, path, token=token, params=params, content=json.dumps(body).encode(),
               content_type="application/json", timeout_s=timeout_s)  # fmt: skip
    answer = _json_or_none(raw)
    if not isinstance(answer, dict):
        raise ValueError("the gateway's answer is not a JSON object")
    return answer


def post(
    base_url: str,
    path: str,
    *,
    token: str,
    params: dict[str, Any],
    content: bytes,
    content_type: str,
    timeout_s: float,
) -> bytes:
    """POST `content` to `base_url` + `path`; the answer's body.

    Each step (connecting, sending, waiting for the answer, reading it) waits at most
    `timeout_s`, then raises TimeoutError. Raises Unreachable, HookRefused for an error
    status, and ValueError for a `base_url` that is not http(s) or an answer past
    MAX_ANSWER_BYTES."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the gateway's URL {base_url!r} is not an http(s) URL")
    query = f"?{urlencode(params)}" if params else ""
    request = urllib.request.Request(
        f"{base_url.rstrip('/')}{path}{query}",
        data=content,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            raw = answer.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as refused:
        with refused:
            raise HookRefused(refused.code, _json_or_none(refused.read(MAX_ANSWER_BYTES))) from None
    except urllib.error.URLError as unreachable:
        if isinstance(unreachable.reason, TimeoutError):
            raise unreachable.reason from None
        raise Unreachable(str(unreachable.reason)) from None
    except TimeoutError:
        raise
    except (OSError, HTTPException) as cut:  # reset, or the answer ended before its end
        raise Unreachable(str(cut) or type(cut).__name__) from None
    if len(raw) > MAX_ANSWER_BYTES:
        raise ValueError(f"the gateway's answer is longer than {MAX_ANSWER_BYTES} bytes")
    return raw


def _json_or_none(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return None
