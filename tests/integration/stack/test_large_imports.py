"""Large imports. The file is read by its route, once the caller is known and the gateway has
room for it (`query.import_bytes_at_once`, 40 MiB here beside 32 MiB for one file): a caller
without a token, or past the budget, is answered before a byte of the body is read, and the
budget comes back however an import ends. And the gateway keeps answering others while a
large file is parsed and checked."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator

import httpx

from tests.integration.stack.conftest import Stack
from tests.integration.stack.test_import_export import admin_client

MIB = 1024 * 1024
HEADER = (json.dumps({"memhive_export": 1, "workspace_id": "w"}) + "\n").encode()


async def never_ending(first: bytes, sent: asyncio.Event) -> AsyncIterator[bytes]:
    """A body that sends its first bytes, then waits for ever (a slow upload)."""
    yield first
    sent.set()
    await asyncio.Event().wait()


def declared(size: int) -> dict[str, str]:
    return {"Content-Length": str(size)}


async def test_a_caller_without_a_token_is_refused_before_the_body_is_read(stack: Stack) -> None:
    sent = asyncio.Event()
    async with stack.client(None) as stranger:
        answer = await asyncio.wait_for(
            stranger.post(
                "/v1/import?format=memhive",
                content=never_ending(HEADER, sent),
                headers=declared(30 * MIB),
            ),
            timeout=30,
        )
    assert answer.status_code == 401


async def test_imports_past_the_budget_wait_their_turn_and_it_comes_back(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        sent = asyncio.Event()
        slow = asyncio.create_task(
            client.post(
                "/v1/import?format=memhive",
                content=never_ending(HEADER, sent),
                headers=declared(32 * MIB),
            )
        )
        await asyncio.wait_for(sent.wait(), timeout=30)  # it holds 32 of the 40 MiB

        nine = b"x" * (9 * MIB)  # not an export: 422 once admitted and read
        refused = await asyncio.wait_for(
            client.post("/v1/import?format=memhive", content=nine), timeout=30
        )
        assert refused.status_code == 503, refused.text
        assert refused.headers["retry-after"] == "5"
        assert "busy with other imports" in refused.json()["detail"]
        small = await client.post("/v1/import?format=memhive&dry_run=true", content=HEADER)
        assert small.status_code == 200, small.text  # a small file fits beside it

        slow.cancel()  # the slow upload is cut: its share comes back
        await asyncio.gather(slow, return_exceptions=True)
        admitted = await client.post("/v1/import?format=memhive", content=nine)
        assert admitted.status_code == 422, admitted.text


async def test_an_import_growing_past_its_bound_is_413(stack: Stack) -> None:
    async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        yield HEADER
        for _ in range(33):
            yield b" " * MIB

    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        too_large = await client.post("/v1/import?format=memhive", content=chunked())
        assert too_large.status_code == 413
        assert too_large.json()["detail"] == "the request body is larger than 33554432 bytes"
        again = await client.post("/v1/import?format=memhive&dry_run=true", content=HEADER)
    assert again.status_code == 200, again.text


async def test_the_gateway_answers_others_while_a_large_file_is_planned(
    stack: Stack, gateway_url: str
) -> None:
    """Parsed in a worker thread, checked with the loop turning: requests made meanwhile are
    answered before the plan's first line (with the plan on the loop, none was)."""
    bullets = "".join(f"- we chose option {n} for the cache layer\n" for n in range(40_000))
    answered_during: list[int] = []
    token = await stack.token(f"ws-{uuid.uuid4().hex[:12]}")
    headers = {"Authorization": f"Bearer {token}"}
    # Over HTTP: the in-process transport would wait for the whole answer.
    async with httpx.AsyncClient(base_url=gateway_url, headers=headers, timeout=120) as client:
        planned = asyncio.Event()

        async def others() -> None:
            while not planned.is_set():
                assert (await client.get("/healthz")).status_code == 200
                answered_during.append(1)

        async def large() -> None:
            params = {"path": "CLAUDE.md", "dry_run": "true"}
            async with client.stream("POST", "/v1/import", params=params, content=bullets) as r:
                async for line in r.aiter_lines():
                    assert json.loads(line)["type"] == "plan", line
                    break
            planned.set()

        pinging = asyncio.create_task(others())
        await asyncio.sleep(0.05)
        answered_during.clear()  # counted from the import's start
        await large()
        await pinging
    assert len(answered_during) >= 20


async def test_an_upload_cut_short_gives_its_share_back_quietly(
    stack: Stack, gateway_url: str, caplog
) -> None:
    """Two uploads of 20 MiB each (the whole budget, as declared) cut after their first bytes:
    nothing logged as an error, and the next import is admitted."""
    token = await stack.token(f"ws-{uuid.uuid4().hex[:12]}")
    host, port = gateway_url.removeprefix("http://").split(":")
    for _ in range(2):
        _, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            f"POST /v1/import?format=memhive HTTP/1.1\r\nHost: memhive\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: {20 * MIB}\r\n\r\n".encode()
            + HEADER
        )
        await writer.drain()
        await asyncio.sleep(0.2)  # the route is reading the body
        writer.close()
        await writer.wait_closed()
    async with stack.client(token) as client:
        for _ in range(50):
            answer = await client.post("/v1/import?format=memhive&dry_run=true", content=HEADER)
            if answer.status_code != 503:
                break
            await asyncio.sleep(0.2)
    assert answer.status_code == 200, answer.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
