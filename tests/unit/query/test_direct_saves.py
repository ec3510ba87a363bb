"""DirectSaves: a save it can take as it is never reaches the app behind it, and answers as the
route would; anything else reaches that app with its body intact."""

from __future__ import annotations

import json
from collections.abc import Sequence

import httpx
import pytest
from fastapi import FastAPI
from memhive_application.authentication import Unauthenticated
from memhive_domain.errors import NotAllowed
from memhive_domain.memory import MemoryDraft
from memhive_domain.principals import Principal
from memhive_ports import BusUnavailable
from memhive_query import direct_saves
from memhive_query.direct_saves import DirectSaves
from memhive_query.errors import install_error_handlers
from memhive_query.request_guards import MAX_REQUEST_BYTES
from memhive_query.use_cases.save import SaveOutcome
from memhive_telemetry import current_trace_ids, propagation
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from tests.unit.query.memories import MEMBER, memory

TOKEN = "Bearer good-token"
SAVE = {"kind": "decision", "body": "Release trains leave every other Tuesday", "force": True}


@pytest.fixture(autouse=True)
def no_exporter(monkeypatch: pytest.MonkeyPatch) -> None:
    """As `memhive run` by default: no span is recorded (a test may say otherwise)."""
    monkeypatch.setattr(direct_saves, "spans_recorded", lambda: False)
    monkeypatch.setattr(propagation, "spans_recorded", lambda: False)


class Auth:
    async def principal_for(self, authorization: str | None) -> Principal:
        if authorization == "Bearer while-the-bus-stalls":
            raise BusUnavailable("the bus did not answer")
        if authorization != TOKEN:
            raise Unauthenticated("no such token")
        return MEMBER


class Save:
    """The audited save: records its calls, answers `status` or raises `error`."""

    def __init__(self, status: str = "indexed", error: Exception | None = None) -> None:
        self.status, self.error = status, error
        self.calls: list[tuple[Principal, MemoryDraft, str, bool, Sequence[str]]] = []

    async def __call__(self, who, draft, wait, *, force=False, supersedes=()) -> SaveOutcome:
        self.calls.append((who, draft, wait, force, supersedes))
        if self.error is not None:
            raise self.error
        return SaveOutcome(memory(1, body=draft.body), self.status)


class Behind:
    """The app behind: answers 299 with the body it read, so a test sees what reached it."""

    def __init__(self) -> None:
        self.reached: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        self.reached.append(b"".join(chunks))
        await JSONResponse({"behind": True}, status_code=299)(scope, receive, send)


def direct(save: Save, behind: Behind, *, raise_errors: bool = True) -> httpx.AsyncClient:
    """A client of DirectSaves in front of `behind`; `raise_errors` False: an exception that
    leaves it reaches the server (the answer sent before it is what the client gets)."""
    app = FastAPI()
    install_error_handlers(app)
    middleware = DirectSaves(behind, Auth(), save, app.exception_handlers)
    transport = httpx.ASGITransport(app=middleware, raise_app_exceptions=raise_errors)
    return httpx.AsyncClient(transport=transport, base_url="http://memhive")


async def test_a_valid_save_is_answered_without_the_app_behind() -> None:
    save, behind = Save(), Behind()
    async with direct(save, behind) as client:
        answer = await client.post(
            "/v1/memories?wait=accepted", json=SAVE, headers={"Authorization": TOKEN}
        )
    assert answer.status_code == 201
    assert answer.json()["status"] == "indexed"
    assert answer.json()["memory"]["body"] == SAVE["body"]
    assert behind.reached == []
    [(who, draft, wait, force, supersedes)] = save.calls
    assert (who, draft.kind, draft.body, wait, force) == (
        MEMBER, "decision", SAVE["body"], "accepted", True
    )  # fmt: skip
    assert list(supersedes) == []


async def test_without_a_wait_it_waits_for_indexed_as_the_route_does() -> None:
    save = Save()
    async with direct(save, Behind()) as client:
        await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    assert save.calls[0][2] == "indexed"


@pytest.mark.parametrize(("status", "code"), [("accepted", 202), ("duplicate", 200)])
async def test_the_status_code_follows_the_outcome(status: str, code: int) -> None:
    async with direct(Save(status), Behind()) as client:
        answer = await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    assert (answer.status_code, answer.json()["status"]) == (code, status)


JSON = {"Authorization": TOKEN, "Content-Type": "application/json"}
CT = {"Content-Type": "application/json"}
FORM = {"Authorization": TOKEN, "Content-Type": "application/x-www-form-urlencoded"}
OTHER_JSON = JSON | {"Content-Type": "application/merge-patch+json"}
NOT_TAKEN = [
    ("no credential", "", b"", CT),
    ("an unknown token", "", b"", CT | {"Authorization": "Bearer nope"}),
    ("the bus unavailable", "", b"", CT | {"Authorization": "Bearer while-the-bus-stalls"}),
    ("a JSON type of another name", "", b"", OTHER_JSON),
    ("no content type", "", b"", {"Authorization": TOKEN}),
    ("a form", "", b"kind=fact&body=x", FORM),
    ("JSON that does not parse", "", b'{"kind": "fact", "body": ', JSON),
    ("bytes that are no text", "", b'{"kind": "fact", "body": "\xff\xfe"}', JSON),
    ("an empty body", "", b" ", JSON),
    ("a list", "", b"[1, 2]", JSON),
    ("a field too many", "", b"", JSON),
    ("an unknown wait", "?wait=eventually", b"", JSON),
    ("an empty wait", "?wait=", b"", JSON),
]


@pytest.mark.parametrize(
    ("case", "query", "raw", "headers"), NOT_TAKEN, ids=[c[0] for c in NOT_TAKEN]
)
async def test_what_fastapi_must_judge_reaches_the_app_behind_unchanged(
    case: str, query: str, raw: bytes, headers: dict
) -> None:
    body = raw or json.dumps(SAVE | ({"colour": "red"} if case == "a field too many" else {}))
    body = body if isinstance(body, bytes) else body.encode()
    save, behind = Save(), Behind()
    async with direct(save, behind) as client:
        answer = await client.post(f"/v1/memories{query}", content=body, headers=headers)
    assert answer.status_code == 299
    assert behind.reached == [body]
    assert save.calls == []


async def test_a_body_in_several_messages_is_read_whole() -> None:
    async def chunks():
        text = json.dumps(SAVE).encode()
        yield text[:10]
        yield text[10:]

    save, behind = Save(), Behind()
    async with direct(save, behind) as client:
        answer = await client.post("/v1/memories", content=chunks(), headers=JSON)
    assert answer.status_code == 201
    assert save.calls[0][1].body == SAVE["body"]


async def test_a_body_past_the_bound_reaches_the_app_behind_whole() -> None:
    """The guards in front refuse it (413); behind them alone, FastAPI reads what is left."""
    large = json.dumps(SAVE | {"body": "x" * (MAX_REQUEST_BYTES + 10)}).encode()

    async def chunks():
        for at in range(0, len(large), 4096):
            yield large[at : at + 4096]

    save, behind = Save(), Behind()
    async with direct(save, behind) as client:
        answer = await client.post("/v1/memories", content=chunks(), headers=JSON)
    assert answer.status_code == 299
    assert behind.reached == [large]
    assert save.calls == []


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/memories"), ("POST", "/v1/recall"), ("POST", "/v1/memories/x")],
)
async def test_other_routes_pass_through(method: str, path: str) -> None:
    behind = Behind()
    async with direct(Save(), behind) as client:
        answer = await client.request(method, path, json=SAVE, headers={"Authorization": TOKEN})
    assert answer.status_code == 299


async def test_an_error_of_the_use_case_gets_the_apps_answer_for_it() -> None:
    save = Save(error=NotAllowed("cannot save: global is read-only to you"))
    async with direct(save, Behind()) as client:
        answer = await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    assert answer.status_code == 403
    assert answer.json()["detail"] == "cannot save: global is read-only to you"


async def test_an_error_without_a_handler_is_a_500_then_raised_to_the_server() -> None:
    save = Save(error=KeyError("a bug"))
    async with direct(save, Behind()) as client:
        with pytest.raises(KeyError):
            await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    async with direct(save, Behind(), raise_errors=False) as client:
        answer = await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    assert (answer.status_code, answer.text) == (500, "Internal Server Error")


async def test_a_body_declared_past_the_bound_reaches_the_app_behind_unread() -> None:
    save, behind = Save(), Behind()
    headers = JSON | {"Content-Length": str(MAX_REQUEST_BYTES + 1)}
    async with direct(save, behind) as client:
        answer = await client.post(
            "/v1/memories", content=b"x" * (MAX_REQUEST_BYTES + 1), headers=headers
        )
    assert answer.status_code == 299
    assert save.calls == []


async def test_with_spans_recorded_fastapi_records_the_saves_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(direct_saves, "spans_recorded", lambda: True)
    save, behind = Save(), Behind()
    async with direct(save, behind) as client:
        answer = await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    assert answer.status_code == 299
    assert save.calls == []


async def test_the_save_runs_in_the_callers_trace() -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    seen = []

    class Tracing(Save):
        async def __call__(self, *args, **kwargs) -> SaveOutcome:
            seen.append(current_trace_ids())
            return await super().__call__(*args, **kwargs)

    headers = {"Authorization": TOKEN, "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}
    async with direct(Tracing(), Behind()) as client:
        await client.post("/v1/memories", json=SAVE, headers=headers)
        await client.post("/v1/memories", json=SAVE, headers={"Authorization": TOKEN})
    [(first, span), (second, _)] = seen
    assert first == trace_id and span != "00f067aa0ba902b7"
    assert second != trace_id  # a trace of its own
