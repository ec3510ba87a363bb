"""Saves answered before FastAPI (direct_saves.py) are answered as FastAPI answers them.

Every request is sent twice, to two fresh workspaces of the running stack: once as
`application/json`, which the direct path takes when it can, and once as
`application/merge-patch+json`, a JSON type FastAPI parses the same way and the direct path
always leaves to FastAPI. The answers must be the same, up to ids, times and workspaces.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhive_domain.kinds import MemoryKind
from memhive_domain.principals import Principal, Role
from memhive_query import direct_saves

from tests.integration.stack.conftest import Stack, Workspace

pytestmark = [
    pytest.mark.timeout(600),
    # The stack moves the global `random` state on its loop's thread while hypothesis draws
    # in another (as in test_tenancy.py); the strategies here use no `random`.
    pytest.mark.filterwarnings(
        "ignore:Do not use the `random` module inside strategies"
        ":hypothesis.errors.HypothesisDeprecationWarning"
    ),
]

DIRECT = "application/json"
THROUGH_FASTAPI = "application/merge-patch+json"
EXAMPLES = 80

# What a caller sends, and now and then one thing no save may hold: both answered alike.
FUTURE, PAST = "2031-05-01T10:00:00Z", "2020-01-01T00:00:00Z"
VALID: dict[str, st.SearchStrategy[Any]] = {
    "importance": st.floats(0, 1) | st.none(),
    "pinned": st.booleans(),
    "tags": st.lists(st.sampled_from(["ops", "release", "db"]), max_size=3),
    "visibility": st.sampled_from(["private", "public", None]),
    "source": st.sampled_from(["agent", "human", "hook"]),
    "source_ref": st.sampled_from(["chat-7:D3:4", "ticket-12", None]),
    "scope": st.just("global"),
    "product_id": st.just("atlas"),
    "expires_at": st.just(FUTURE),
    "occurred_at": st.sampled_from([PAST, FUTURE]),
    "force": st.booleans(),
    "supersedes": st.lists(st.uuids().map(str), max_size=1),
}
INVALID: dict[str, st.SearchStrategy[Any]] = {
    "kind": st.sampled_from(["", "FACT", 5]),
    "body": st.sampled_from(["", "   ", None, "\u200b\u200b"]),
    "importance": st.sampled_from([1.5, "high"]),
    "tags": st.sampled_from([["Ops!"], [""], "ops"]),
    "visibility": st.just("secret"),
    "source": st.just("robot"),
    "scope": st.just("nowhere"),
    "product_id": st.just("Atlas!"),
    "expires_at": st.sampled_from([PAST, "2031-13-40T99:00:00Z", 448]),
    "force": st.just("sure"),
    "supersedes": st.just(["not-an-id"]),
    "colour": st.just("red"),  # a field no save has
}
KINDS = [k.value for k in MemoryKind]
WAITS = ["", "?wait=accepted", "?wait=persisted", "?wait=indexed"]


@st.composite
def save_requests(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)
    body: dict[str, Any] = {
        "kind": draw(st.sampled_from(KINDS)),
        "body": f"{draw(text)} {uuid.uuid4().hex}",
    }
    for name in draw(st.lists(st.sampled_from(sorted(VALID)), max_size=3, unique=True)):
        body[name] = draw(VALID[name])
    wait = draw(st.sampled_from(WAITS))
    mistake = draw(st.integers(0, 3))  # half of them: one thing wrong (a field, or missing)
    if mistake == 1:
        name = draw(st.sampled_from(sorted(INVALID)))
        body[name] = draw(INVALID[name])
    elif mistake == 2:
        if draw(st.booleans()):
            del body[draw(st.sampled_from(["kind", "body"]))]
        else:
            wait = draw(st.sampled_from(["?wait=soon", "?wait=", "?wait=Indexed"]))
    return body, wait


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")


def normalised(value: Any, workspace: str) -> Any:
    """The answer without what differs between two workspaces' saves: ids, times, the
    workspace's name."""
    if isinstance(value, dict):
        return {k: normalised(v, workspace) for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v, workspace) for v in value]
    if isinstance(value, str):
        return _MOMENT.sub("<time>", _UUID.sub("<id>", value.replace(workspace, "<ws>")))
    return value


async def answer(stack: Stack, content_type: str, body: bytes, wait: str) -> tuple[int, Any]:
    workspace = f"ws-direct-{uuid.uuid4().hex[:10]}"
    token = await stack.infra.tokens.issue(Principal(workspace, "agent", Role.ADMIN))
    async with stack.client(token) as client:
        sent = await client.post(
            f"/v1/memories{wait}", content=body, headers={"Content-Type": content_type}
        )
    try:
        shown = sent.json()
    except ValueError:
        shown = sent.text
    return sent.status_code, normalised(shown, workspace)


async def test_every_save_is_answered_as_fastapi_answers_it(stack: Stack) -> None:
    loop = asyncio.get_running_loop()
    mismatches = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(request=save_requests())
    def each(request: tuple[dict[str, Any], str]) -> None:
        fields, wait = request
        body = json.dumps(fields).encode()

        async def both() -> list[tuple[int, Any]]:
            return await asyncio.gather(
                answer(stack, DIRECT, body, wait), answer(stack, THROUGH_FASTAPI, body, wait)
            )

        direct, through = asyncio.run_coroutine_threadsafe(both(), loop).result(timeout=120)
        if direct != through:
            mismatches.append((fields, wait, direct, through))

    await asyncio.to_thread(each)
    assert not mismatches, "\n".join(map(str, mismatches[:5]))


MISTAKES = [
    ("importance", 1.5), ("importance", "high"), ("kind", ""), ("kind", "FACT"), ("kind", 5),
    ("body", ""), ("body", "   "), ("body", None), ("body", "\u200b\u200b"), ("body", "x" * 20_000),
    ("tags", ["Ops!"]), ("tags", [""]), ("tags", "ops"), ("tags", ["t"] * 99),
    ("visibility", "secret"), ("source", "robot"), ("scope", "nowhere"), ("scope", "product"),
    ("product_id", "Atlas!"), ("scope_path", "global/nowhere"), ("expires_at", PAST),
    ("expires_at", "2031-13-40T99:00:00Z"), ("expires_at", 448), ("occurred_at", "soon"),
    ("force", "sure"), ("supersedes", ["not-an-id"]), ("supersedes", [str(uuid.UUID(int=7))]),
    ("colour", "red"), ("kind", None),
]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), MISTAKES, ids=[f"{n}={v!r:.20}" for n, v in MISTAKES])
async def test_each_mistake_is_answered_as_fastapi_answers_it(
    stack: Stack, name: str, value: Any
) -> None:
    body = json.dumps({"kind": "fact", "body": f"one mistake {uuid.uuid4().hex}", name: value})
    direct = await answer(stack, DIRECT, body.encode(), "?wait=accepted")
    through = await answer(stack, THROUGH_FASTAPI, body.encode(), "?wait=accepted")
    assert direct == through
    assert direct[0] >= 400


@pytest.mark.parametrize(
    "wait", ["?wait=soon", "?wait=", "?wait=Indexed", "?wait=indexed&wait=accepted"]
)
async def test_a_wrong_wait_is_answered_as_fastapi_answers_it(stack: Stack, wait: str) -> None:
    body = json.dumps({"kind": "fact", "body": f"a wrong wait {uuid.uuid4().hex}"}).encode()
    direct = await answer(stack, DIRECT, body, wait)
    assert direct == await answer(stack, THROUGH_FASTAPI, body, wait)
    assert direct[0] == 422


async def test_a_valid_save_is_answered_directly(
    stack: Stack, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The direct path is taken in the stack as `memhive run` composes it (without it, every
    test here would pass through FastAPI and still be green)."""
    answered = []
    answer_save = direct_saves.answer_save

    async def counted(*args: Any) -> Any:
        answered.append(args)
        return await answer_save(*args)

    monkeypatch.setattr(direct_saves, "answer_save", counted)
    saved = await workspace.member.post(
        "/v1/memories?wait=accepted", json={"kind": "fact", "body": "The depot opens at six"}
    )
    assert saved.status_code == 202, saved.text
    refused = await workspace.member.post("/v1/memories", json={"kind": "fact"})
    assert refused.status_code == 422
    assert len(answered) == 1


async def test_a_near_duplicate_is_refused_alike(stack: Stack) -> None:
    """409 with the similar memories listed, either way."""
    answers = []
    for content_type in (DIRECT, THROUGH_FASTAPI):
        workspace = f"ws-direct-{uuid.uuid4().hex[:10]}"
        token = await stack.infra.tokens.issue(Principal(workspace, "agent"))
        async with stack.client(token) as client:
            first = {"kind": "fact", "body": "The night train to Vienna leaves at 22:10"}
            assert (await client.post("/v1/memories", json=first)).status_code == 201
            again = json.dumps(
                {"kind": "fact", "body": "The night train to Vienna departs at 22:10"}
            )
            sent = await client.post(
                "/v1/memories", content=again, headers={"Content-Type": content_type}
            )
            answers.append((sent.status_code, normalised(sent.json(), workspace)))
    assert answers[0][0] == 409
    assert answers[0] == answers[1]


async def test_direct_saves_count_in_fastapis_request_metrics(stack: Stack) -> None:
    """One series for the route and status, whichever way a save was answered."""
    series = (
        r'http_server_request_duration_seconds_count\{[^}]*http_response_status_code="202",'
        r'http_route="/v1/memories"[^}]*\} (\d+)'
    )

    async def saves_counted() -> int:
        async with stack.client(None) as anonymous:
            text = (await anonymous.get("/metrics")).text
        return sum(int(n) for n in re.findall(series, text))

    before = await saves_counted()
    body = json.dumps({"kind": "fact", "body": f"counted {uuid.uuid4().hex}"}).encode()
    for content_type in (DIRECT, THROUGH_FASTAPI):
        assert (await answer(stack, content_type, body, "?wait=accepted"))[0] == 202
    assert await saves_counted() == before + 2
    async with stack.client(None) as anonymous:
        text = (await anonymous.get("/metrics")).text
    assert len(re.findall(series, text)) == 1
    active = r'http_server_active_requests\{[^}]*http_request_method="POST"[^}]*\} (\S+)'
    assert {float(n) for n in re.findall(active, text)} == {0.0}  # every request counted out
