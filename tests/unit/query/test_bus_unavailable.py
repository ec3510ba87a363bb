"""Faults that heal by themselves answer 503 (507 for a full disk) with Retry-After, never a
500; the MCP endpoint's own token check answers the same way."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from memhive_application.authentication import Authenticator
from memhive_ports import BusUnavailable, InsufficientStorage, TokenServiceUnavailable
from memhive_query.errors import install_error_handlers
from memhive_query.mcp.request_origin import McpOrigins
from memhive_query.mcp_mount import McpAuth

from tests.fakes import FakeTokenDirectory, FixedClock


def answer_to(failure: Exception) -> httpx.Response:
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/save")
    async def save() -> None:
        raise failure

    return TestClient(app).post("/save")


def test_bus_unavailable_is_503_with_retry_after() -> None:
    answer = answer_to(
        BusUnavailable("the bus did not store memhive.cmd.memory.save after 6 attempts")
    )
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert answer.json() == {
        "detail": "memhive's bus cannot take this right now: the bus did not store "
        "memhive.cmd.memory.save after 6 attempts",
        "problems": [],
    }


def test_a_full_disk_is_507_naming_the_cause() -> None:
    cause = "the save was not accepted: memhive's disk is nearly full (3.0 MiB free, ...)"
    answer = answer_to(InsufficientStorage(cause))
    assert answer.status_code == 507
    assert answer.headers["Retry-After"] == "30"
    assert answer.json() == {"detail": cause, "problems": []}


def test_an_unanswered_token_change_is_503_with_retry_after() -> None:
    answer = answer_to(TokenServiceUnavailable("no token service answered within 5 s"))
    assert (answer.status_code, answer.headers["Retry-After"]) == (503, "1")


class UnansweredTokens(FakeTokenDirectory):
    async def lookup(self, token: str):
        raise BusUnavailable("the bus did not answer within 2 s")


async def test_mcp_answers_503_when_the_token_cannot_be_looked_up() -> None:
    async def mcp_app(scope, receive, send) -> None:
        raise AssertionError("the MCP app must not be reached")

    auth = Authenticator(UnansweredTokens(), FixedClock())
    origins = McpOrigins.for_gateway("127.0.0.1")
    app = McpAuth(mcp_app, auth, loopback=httpx.AsyncClient(), origins=origins)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        answer = await http.post("/mcp", headers={"Authorization": "Bearer mh_x"})
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert "the bus did not answer within 2 s" in answer.json()["detail"]
