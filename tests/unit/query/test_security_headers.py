"""The browser headers go on every answer under the prefixes, and on nothing else."""

from __future__ import annotations

import pytest
from memhive_query.dashboard.security_headers import SecurityHeaders


async def answered(path: str) -> dict[bytes, bytes]:
    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"a", b"1")]})
        await send({"type": "http.response.body", "body": b""})

    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    guarded = SecurityHeaders(app, ["/memory", "/docs"])
    await guarded({"type": "http", "path": path}, None, send)
    return dict(sent[0]["headers"])


@pytest.mark.parametrize("path", ["/memory", "/memory/m/x", "/docs", "/docs/assets/a.js"])
async def test_pages_under_a_prefix_get_every_header(path: str) -> None:
    headers = await answered(path)
    assert headers[b"a"] == b"1"
    assert b"frame-ancestors 'none'" in headers[b"content-security-policy"]
    assert headers[b"x-frame-options"] == b"DENY"
    assert headers[b"referrer-policy"] == b"same-origin"
    assert headers[b"x-content-type-options"] == b"nosniff"


@pytest.mark.parametrize("path", ["/v1/recall", "/mcp", "/memoryx", "/docsy", "/openapi.json"])
async def test_other_paths_are_left_alone(path: str) -> None:
    assert await answered(path) == {b"a": b"1"}
