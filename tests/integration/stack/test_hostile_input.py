"""Input a hostile or careless caller sends (issue 10): always a 4xx naming the field, never a
5xx, a crash or a dropped connection."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MAX_TAGS

from tests.integration.stack.conftest import Stack, Workspace, save

SURROGATE = "a \ud800 b"
ISSUED_BY_NO_ONE = [
    "bzoxMDAwMDAwMDAwMA==",  # the old offset cursor o:10000000000 (tantivy: 480 GB)
    base64.urlsafe_b64encode(f"o:{2**64 - 1}".encode()).decode(),
    base64.urlsafe_b64encode(f"o:{10**30}".encode()).decode(),
    "k1."
    + base64.urlsafe_b64encode(f"{10**30}:0190b2a4-0000-7000-8000-000000000000".encode())
    .decode()
    .rstrip("="),
    "k1.bm90IGEgcG9zaXRpb24",
    "k1.",
    "x" * 90,
    "k1." + "A" * 500,
    "%00",
    "é",
]


def as_json(payload: dict) -> bytes:
    """Encoded the way a client may send it: lone surrogates as \\ud800 escapes."""
    return json.dumps(payload).encode()


async def post_raw(client: httpx.AsyncClient, path: str, payload: dict) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    return await client.post(path, content=as_json(payload), headers=headers)


def fields_of(response: httpx.Response) -> list[str]:
    assert response.status_code == 422, (response.status_code, response.text)
    return [p["field"] for p in response.json()["problems"]]


@pytest.mark.parametrize("cursor", ISSUED_BY_NO_ONE)
async def test_a_cursor_the_api_did_not_issue_is_422_naming_cursor(
    workspace: Workspace, cursor: str
) -> None:
    for client in (workspace.member, workspace.reader):
        response = await client.get("/v1/memories", params={"cursor": cursor})
        assert "cursor" in fields_of(response)


async def test_cursors_page_through_everything_once(workspace: Workspace) -> None:
    saved = [
        (await save(workspace.member, kind="fact", body=f"Page test number {i} of seven"))["id"]
        for i in range(7)
    ]
    seen, cursor = [], None
    for _ in range(10):
        params = {"limit": 3} | ({"cursor": cursor} if cursor else {})
        page = (await workspace.member.get("/v1/memories", params=params)).json()
        seen += [m["id"] for m in page["items"]]
        if (cursor := page["next_cursor"]) is None:
            break
        assert cursor.startswith("k1.")
    assert sorted(seen) == sorted(saved) and len(seen) == 7


@pytest.mark.parametrize(
    ("path", "payload", "field"),
    [
        ("/v1/memories", {"kind": "fact", "body": SURROGATE}, "body"),
        ("/v1/memories", {"kind": "fact", "body": "ok", "source_ref": SURROGATE}, "source_ref"),
        ("/v1/memories", {"kind": "fact", "body": "ok", "tags": [SURROGATE]}, "tags"),
        ("/v1/memories", {"kind": SURROGATE, "body": "ok"}, "kind"),
        ("/v1/memories", {"kind": "fact", "body": "ok", "product_id": SURROGATE}, "product_id"),
        ("/v1/memories", {"kind": "fact", "body": "ok", "supersedes": [SURROGATE]}, "supersedes"),
        ("/v1/memories", {"kind": "fact", "body": "ok", SURROGATE: 1}, "body"),
        ("/v1/recall", {"query": SURROGATE}, "query"),
        ("/v1/recall", {"query": "ok", "tags": [SURROGATE]}, "tags"),
        ("/v1/recall", {"query": "ok", "kinds": [SURROGATE]}, "kinds"),
        ("/v1/context", {"query": SURROGATE, "token_budget": 500}, "query"),
        ("/v1/context", {"product_id": SURROGATE, "token_budget": 500}, "product_id"),
        ("/v1/edges", {"src_id": SURROGATE, "dst_id": "x", "kind": "updates"}, "src_id"),
        (
            "/v1/edges",
            {"src_id": "a", "dst_id": "b", "kind": "updates", "rationale": SURROGATE},
            "rationale",
        ),
    ],
)
async def test_lone_surrogates_are_422_naming_the_field(
    workspace: Workspace, path: str, payload: dict, field: str
) -> None:
    response = await post_raw(workspace.member, path, payload)
    named = fields_of(response)
    assert any(field.encode("utf-8", "replace").decode() in f for f in named), named


async def test_the_keep_alive_connection_survives_bad_text(
    workspace: Workspace, gateway_url: str, stack: Stack
) -> None:
    token = await stack.token(workspace.id)
    async with httpx.AsyncClient(
        base_url=gateway_url, headers={"Authorization": f"Bearer {token}"}
    ) as client:
        for payload in ({"query": SURROGATE}, {"query": "fine"}):
            response = await post_raw(client, "/v1/recall", payload)
            assert response.status_code in (200, 422)
            assert response.headers.get("connection") != "close"
        pool = client._transport._pool  # the same single connection served both requests
        assert len(pool.connections) == 1


@pytest.mark.parametrize(
    "expires_at",
    ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999999-00:01"],
)
async def test_expiry_at_the_edges_of_the_calendar_is_422(
    workspace: Workspace, expires_at: str
) -> None:
    response = await workspace.member.post(
        "/v1/memories", json={"kind": "fact", "body": "ok", "expires_at": expires_at}
    )
    assert fields_of(response) == ["expires_at"]


NOTHING_VISIBLE = ["\x00", "\x00\x00\x00", "\u200b\u200b", "\u200d\ufeff\u2060", " \t\n\r"]
# Issue 24: Hangul fillers, the combining grapheme joiner, the blank braille pattern.
NOTHING_VISIBLE += ["\u2028", "\u3164", "\u115f\u1160", "\u034f", "\u2800", "\u0301\u20dd"]


@pytest.mark.parametrize("body", NOTHING_VISIBLE)
async def test_bodies_and_queries_with_nothing_visible_are_422(
    workspace: Workspace, body: str
) -> None:
    response = await workspace.member.post("/v1/memories", json={"kind": "fact", "body": body})
    assert fields_of(response) == ["body"]
    recall = await workspace.member.post("/v1/recall", json={"query": body})
    assert fields_of(recall) == ["query"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("TRACE", "/v1/memories", {"GET", "POST"}),
        ("PUT", "/v1/recall", {"POST"}),
        ("PUT", "/v1/memories/0190b2a4-0000-7000-8000-000000000000", {"GET", "PATCH", "DELETE"}),
        # A node path keeps its '/' (the routes' `{scope:path}`), one segment or several.
        ("POST", "/v1/kv/product:ios/team:mobile/release-train", {"GET", "PUT", "DELETE"}),
        ("TRACE", "/v1/bulletins/product:ios/team:mobile", {"GET"}),
    ],
)
async def test_unknown_methods_on_known_paths_are_405_with_allow(
    workspace: Workspace, method: str, path: str, allowed: set[str]
) -> None:
    response = await workspace.member.request(method, path)
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == allowed
    assert response.json()["detail"]


async def test_oversized_bodies_are_413_before_any_parsing(workspace: Workspace) -> None:
    big = as_json({"kind": "fact", "body": "x" * 200_000})

    async def chunks():
        for start in range(0, len(big), 16_384):
            yield big[start : start + 16_384]

    declared = await workspace.member.post("/v1/memories", content=big)
    chunked = await workspace.member.post("/v1/memories", content=chunks())

    for response in (declared, chunked):
        assert response.status_code == 413
        assert set(response.json()) == {"detail", "problems"}


async def test_deeply_nested_json_is_422(workspace: Workspace) -> None:
    nested = b'{"kind": "fact", "body": "x", "tags": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    response = await workspace.member.post(
        "/v1/memories", content=nested, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text


async def test_repeated_list_filters_are_bounded_in_the_schema(workspace: Workspace) -> None:
    """The listing's repeated kind/tag are bounded where the request is parsed, so a
    hundred thousand of them never reach the domain's checks."""
    document = (await workspace.member.get("/openapi.json")).json()
    parameters = document["paths"]["/v1/memories"]["get"]["parameters"]
    bounds = {
        p["name"]: p["schema"]["anyOf"][0].get("maxItems")
        for p in parameters
        if p["name"] in ("kind", "tag")
    }
    assert bounds == {"kind": len(MemoryKind), "tag": MAX_TAGS}


# What schemathesis sent (seed 56830431346764820479738604018290496977): the last product_id
# is empty, and it alone was read, so the listing answered 200 for "no product".
SCHEMATHESIS_ST201 = (
    "/v1/memories?created_after=0137-02-14T20%3A44%3A04.832Z&limit=2"
    "&product_id=Hn%F3%B3%86%9C%7F%F2%A1%98%83%C3%8Fhh%C2%81%F1%BD%91%81&product_id=Inf"
    "&product_id=&tag=false&created_before=0219-10-25T10%3A21%3A00-02%3A59"
)


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        (SCHEMATHESIS_ST201, ["product_id"]),
        ("/v1/memories?product_id=ios&product_id=android", ["product_id"]),
        ("/v1/memories?limit=5&limit=500&scope=team&scope=product", ["limit", "scope"]),
        ("/v1/bulletins/product?product_id=&product_id=ios", ["product_id"]),
        ("/v1/bulletins/product:ios/team:mobile?product_id=ios&product_id=web", ["product_id"]),
    ],
)
async def test_a_single_valued_query_parameter_sent_twice_is_422_naming_it(
    workspace: Workspace, path: str, fields: list[str]
) -> None:
    for client in (workspace.member, workspace.reader):
        assert fields_of(await client.get(path)) == fields


async def test_list_filters_may_repeat(workspace: Workspace) -> None:
    saved = await save(workspace.member, kind="fact", body="Repeated tags select", tags=["a", "b"])
    response = await workspace.member.get("/v1/memories?tag=a&tag=b&kind=fact&kind=decision")
    assert response.status_code == 200, response.text
    assert saved["id"] in [m["id"] for m in response.json()["items"]]


async def test_the_openapi_document_declares_the_error_shape(workspace: Workspace) -> None:
    document = (await workspace.member.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert set(schemas["ErrorBody"]["properties"]) == {"detail", "problems"}
    for path, operations in document["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in operations.items():
            declared = operation["responses"]
            assert {"401", "422"} <= set(declared), (method, path)
            ref = declared["422"]["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith("/ErrorBody"), (method, path)


@pytest.mark.parametrize(
    ("method", "path", "payload", "field"),
    [
        ("PUT", "/v1/kv/global/deploy-lock", {"value": 1, "ttl_s": True}, "ttl_s"),  # not 1 s
        ("PUT", "/v1/kv/global/deploy-lock", {"value": 1, "create_only": "yes"}, "create_only"),
        ("POST", "/v1/memories", {"kind": "fact", "body": "b", "force": "yes"}, "force"),
        ("POST", "/v1/memories", {"kind": "fact", "body": "b", "importance": "0.5"}, "importance"),
        ("POST", "/v1/recall", {"query": "q", "max_results": "5"}, "max_results"),
        ("POST", "/v1/recall", {"query": "q", "include_superseded": 1}, "include_superseded"),
    ],
)
async def test_a_field_of_another_json_type_is_422_naming_it_not_read_as_a_value(
    workspace: Workspace, method: str, path: str, payload: dict, field: str
) -> None:
    """What the OpenAPI document types boolean, integer or number is that JSON type, as a
    save answered before FastAPI reads it too (direct_saves.py)."""
    response = await workspace.member.request(
        method, path, content=as_json(payload), headers={"Content-Type": "application/json"}
    )
    assert any(field in f for f in fields_of(response)), response.text
