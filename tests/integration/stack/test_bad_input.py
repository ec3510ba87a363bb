"""Bad input gets a 4xx with a message a caller can act on; nothing crashes or is lost."""

from __future__ import annotations

import pytest

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"kind": "fact", "body": ""}, "body"),
        ({"kind": "fact", "body": "x" * 4001}, "body"),
        ({"kind": "rumour", "body": "x"}, "kind"),
        ({"kind": "fact", "body": "x", "scope": "product"}, "product_id"),
        ({"kind": "fact", "body": "x", "scope": "global", "product_id": "ios"}, "product_id"),
        ({"kind": "fact", "body": "x", "importance": 3}, "importance"),
        ({"kind": "fact", "body": "x", "tags": ["Has Space"]}, "tags"),
        ({"kind": "fact", "body": "x", "visibility": "secret"}, "visibility"),
        ({"kind": "fact", "body": "x", "expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"kind": "fact"}, "body"),
        ({"kind": "fact", "body": "x", "colour": "red"}, "colour"),
    ],
)
async def test_invalid_saves_are_422_naming_the_field(
    workspace: Workspace, payload: dict, field: str
) -> None:
    response = await workspace.member.post("/v1/memories", json=payload)
    assert response.status_code == 422
    assert field in [p["field"] for p in response.json()["problems"]], response.json()


async def test_schema_errors_read_as_one_sentence_per_field(workspace: Workspace) -> None:
    """Caught before the domain (wrong types, unknown fields): no pydantic internals."""
    response = await workspace.member.post(
        "/v1/memories", json={"kind": "fact", "body": "x", "tags": "t", "colour": "red"}
    )
    assert response.status_code == 422
    assert response.json()["problems"] == [
        {"field": "tags", "message": "must be a list"},
        {"field": "colour", "message": "is not a field of this request; leave it out"},
    ]
    listed = await workspace.member.get("/v1/memories", params={"limit": "lots"})
    assert listed.json()["detail"] == "limit: must be a whole number"


async def test_malformed_json_is_422(workspace: Workspace) -> None:
    response = await workspace.member.post(
        "/v1/memories", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422 and response.json()["detail"]


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer not-a-token", "Basic abc"])
async def test_missing_or_unknown_tokens_are_401(stack: Stack, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    async with stack.client(None) as client:
        for method, path in [
            ("post", "/v1/recall"),
            ("get", "/v1/memories"),
            ("post", "/v1/memories"),
        ]:
            response = await client.request(
                method.upper(), path, json={"query": "x"}, headers=headers
            )
            assert response.status_code == 401, (method, path)
            assert "token" in response.json()["detail"]


@pytest.mark.parametrize("memory_id", ["0190b2a4-0000-7000-8000-000000000000", "not-a-uuid"])
async def test_unknown_ids_are_404(workspace: Workspace, memory_id: str) -> None:
    assert (await workspace.member.get(f"/v1/memories/{memory_id}")).status_code == 404
    assert (await workspace.member.delete(f"/v1/memories/{memory_id}")).status_code == 404


@pytest.mark.parametrize(
    "payload",
    [
        {"query": ""},
        {"query": "x", "max_results": 0},
        {"query": "x", "max_results": 21},
        {"query": "x", "kinds": ["rumour"]},
        {"query": "x", "scope": "product"},
    ],
)
async def test_invalid_recalls_are_422(workspace: Workspace, payload: dict) -> None:
    response = await workspace.member.post("/v1/recall", json=payload)
    assert response.status_code == 422 and response.json()["detail"]


async def test_bad_requests_lose_nothing(workspace: Workspace) -> None:
    kept = await save(workspace.member, kind="fact", body="The mobile team owns the release train")
    for payload in ({"kind": "rumour", "body": "x"}, {"kind": "fact", "body": ""}):
        await workspace.member.post("/v1/memories", json=payload)
    assert await recall_ids(workspace.member, "who owns the release train?") == [kept["id"]]


async def test_query_syntax_is_just_text(workspace: Workspace) -> None:
    await save(
        workspace.member, kind="fact", body="C++ templates: AND (OR) NOT *wildcards* are literal"
    )
    for query in ["AND (foo:", '"unbalanced', "*?", "title:[a TO", "\\"]:
        response = await workspace.member.post("/v1/recall", json={"query": query})
        assert response.status_code == 200, query
