"""The client's request models take booleans, integers and numbers as those types, as the
gateway does: a wrong one is refused before anything is sent, never sent as another value."""

from __future__ import annotations

import httpx
import pytest
from memhive_client import MemhiveClient
from pydantic import ValidationError


def never_called(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"sent: {request.method} {request.url}")


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.set_state("global", "deploy-lock", 1, ttl_s=True), "ttl_s"),
        (lambda c: c.set_state("global", "deploy-lock", 1, create_only="yes"), "create_only"),
        (lambda c: c.save("fact", "b", importance=True), "importance"),
        (lambda c: c.save("fact", "b", force="no"), "force"),
        (lambda c: c.recall("q", max_results="5"), "max_results"),
    ],
)
def test_a_field_of_another_type_is_refused_before_sending(call, field: str) -> None:
    transport = httpx.MockTransport(never_called)
    client = MemhiveClient("http://memhive", "t0k", transport=transport)
    with client, pytest.raises(ValidationError) as refused:
        call(client)
    assert (field,) in [e["loc"][:1] for e in refused.value.errors()]


def test_a_whole_number_written_as_a_float_is_sent_as_an_integer() -> None:
    """JSON Schema's integer takes 30.0, and so does the gateway: so does the client."""
    sent: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        entry = {"scope": "global", "key": "deploy-lock", "value": 1, "revision": 1, "size": 1}
        written = {"updated_by": "agent", "updated_at": "2026-12-07T00:00:00Z"}
        return httpx.Response(200, json=entry | written | {"expires_at": None})

    client = MemhiveClient("http://memhive", "t0k", transport=httpx.MockTransport(answer))
    with client:
        client.set_state("global", "deploy-lock", 1, ttl_s=30.0)
        with pytest.raises(ValidationError):
            client.set_state("global", "deploy-lock", 1, ttl_s=30.5)
    assert sent == [b'{"value":1,"ttl_s":30}']
