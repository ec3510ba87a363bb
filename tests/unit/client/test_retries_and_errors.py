"""The client's retries and exceptions, against a scripted transport (no server)."""

from __future__ import annotations

import json

import httpx
import pytest
from memhive_client import (
    AsyncMemhiveClient,
    InvalidRequest,
    MemhiveClient,
    NotFound,
    RetryPolicy,
    Unavailable,
)

NO_WAIT = RetryPolicy(attempts=3, backoff_s=0.0)


def scripted(*answers: httpx.Response) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return seen, httpx.MockTransport(handle)


def test_503_and_429_are_retried_then_the_answer_is_read() -> None:
    seen, transport = scripted(
        httpx.Response(503, json={"detail": "busy"}),
        httpx.Response(429, json={"detail": "slow down"}, headers={"Retry-After": "0"}),
        httpx.Response(200, json={"status": "ok", "nats": True}),
    )
    with MemhiveClient("http://memhive", "t0k", retry=NO_WAIT, transport=transport) as client:
        assert client.health() == {"status": "ok", "nats": True}
    assert len(seen) == 3
    assert seen[0].headers["authorization"] == "Bearer t0k"


def test_still_unavailable_after_every_attempt_raises_with_the_detail() -> None:
    seen, transport = scripted(*[httpx.Response(503, json={"detail": "bus down"})] * 3)
    with (
        MemhiveClient("http://memhive", "t", retry=NO_WAIT, transport=transport) as client,
        pytest.raises(Unavailable) as caught,
    ):
        client.health()
    assert caught.value.status == 503 and caught.value.detail == "bus down"
    assert len(seen) == 3


def test_a_4xx_is_final_and_carries_the_problems() -> None:
    body = {"detail": "kind: unknown", "problems": [{"field": "kind", "message": "unknown"}]}
    seen, transport = scripted(httpx.Response(422, json=body))
    with (
        MemhiveClient("http://memhive", "t", retry=NO_WAIT, transport=transport) as client,
        pytest.raises(InvalidRequest) as caught,
    ):
        client.save("rumour", "x")
    assert len(seen) == 1
    assert caught.value.problems[0].field == "kind"
    assert seen[0].url.params["wait"] == "indexed"  # the default: read-your-writes, 409s


def test_retry_after_is_honoured_within_the_cap() -> None:
    policy = RetryPolicy(backoff_s=0.5, max_backoff_s=4.0)
    assert policy.delay(1, httpx.Response(429, headers={"Retry-After": "2"})) == 2.0
    assert policy.delay(1, httpx.Response(429, headers={"Retry-After": "60"})) == 4.0
    assert [policy.delay(n, None) for n in (1, 2, 3, 5)] == [0.5, 1.0, 2.0, 4.0]


async def test_the_async_client_pages_through_every_memory() -> None:
    def page(ids: list[str], cursor: str | None) -> httpx.Response:
        return httpx.Response(200, json={"items": [memory(i) for i in ids], "next_cursor": cursor})

    seen, transport = scripted(page(["a", "b"], "c1"), page(["c"], None))
    async with AsyncMemhiveClient("http://memhive", "t", transport=transport) as client:
        ids = [m.id async for m in client.iter_memories(page_size=2, kind=["fact"])]
    assert ids == ["a", "b", "c"]
    assert [r.url.params.get("cursor") for r in seen] == [None, "c1"]
    assert seen[0].url.params.get_list("kind") == ["fact"]


def test_an_update_sends_only_the_fields_given_and_an_explicit_none() -> None:
    answer = {"id": "a", "status": "updated", "memory": memory("a")}
    seen, transport = scripted(*[httpx.Response(200, json=answer)] * 3)
    with MemhiveClient("http://memhive", "t", retry=NO_WAIT, transport=transport) as client:
        client.update("a", expires_at=None, wait="indexed")
        client.unpin("a")
        client.clear_flags("a", ["f1", "f2"])
    patch, unpin, clear = seen
    assert (patch.method, patch.url.path, patch.url.params["wait"]) == (
        "PATCH",
        "/v1/memories/a",
        "indexed",
    )
    assert json.loads(patch.content) == {"expires_at": None}  # removes the expiry
    assert json.loads(unpin.content) == {"pinned": False}
    assert (clear.method, clear.url.params.get_list("flag_id")) == ("DELETE", ["f1", "f2"])


async def test_the_async_client_raises_not_found() -> None:
    _, transport = scripted(httpx.Response(404, json={"detail": "memory x not found"}))
    async with AsyncMemhiveClient("http://memhive", "t", transport=transport) as client:
        with pytest.raises(NotFound, match="memory x not found"):
            await client.get("x")


def memory(memory_id: str) -> dict:
    return {
        "id": memory_id,
        "kind": "fact",
        "body": "b",
        "importance": 0.5,
        "pinned": False,
        "tags": [],
        "scope": "global",
        "product_id": None,
        "visibility": "private",
        "source": "agent",
        "source_ref": None,
        "created_by": "u",
        "created_at": "2026-05-01T00:00:00Z",
        "updated_at": "2026-05-01T00:00:00Z",
        "expires_at": None,
        "revision": 1,
        "access_count": 0,
        "last_accessed_at": None,
        "trust": 0.9,
        "staleness": 0.0,
    }
