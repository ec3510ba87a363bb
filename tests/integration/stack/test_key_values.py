"""Key/value memory over HTTP on the real stack: the bucket on a real nats-server, the gateway's
routes, compare-and-set with ETag/If-Match/If-None-Match, TTL, paging, refusals naming the
field, the audit log, and concurrent writers that never lose an update."""

from __future__ import annotations

import asyncio

import httpx
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, Workspace
from tests.integration.stack.test_mcp_tools import session, text

PLAN = "/v1/kv/product:ios/team:mobile/release-plan"


async def test_put_get_delete_with_revisions_as_etags(workspace: Workspace) -> None:
    client = workspace.member
    created = await client.put(PLAN, json={"value": {"steps": ["build"], "done": 0}})
    assert created.status_code == 200, created.text
    body = created.json()
    assert (body["scope"], body["key"], body["value"]) == (
        "product:ios/team:mobile",
        "release-plan",
        {"steps": ["build"], "done": 0},
    )
    assert created.headers["ETag"] == f'"{body["revision"]}"' and body["updated_by"] == "agent"

    got = await client.get(PLAN)
    assert got.json() == body and got.headers["ETag"] == created.headers["ETag"]

    stale = created.headers["ETag"]
    updated = await client.put(PLAN, json={"value": {"done": 1}}, headers={"If-Match": stale})
    assert updated.status_code == 200 and updated.json()["revision"] > body["revision"]
    refused = await client.put(PLAN, json={"value": {"done": 9}}, headers={"If-Match": stale})
    assert refused.status_code == 409, refused.text
    assert refused.json()["current_revision"] == updated.json()["revision"]
    exists = await client.put(PLAN, json={"value": 0}, headers={"If-None-Match": "*"})
    assert exists.status_code == 409
    missing = await client.put(PLAN + "-none", json={"value": 0}, headers={"If-Match": "*"})
    assert missing.status_code == 409 and missing.json()["current_revision"] is None
    assert (await client.get(PLAN)).json()["value"] == {"done": 1}

    deleted = await client.delete(PLAN, headers={"If-Match": updated.headers["ETag"]})
    assert deleted.json() == {
        "scope": "product:ios/team:mobile",
        "key": "release-plan",
        "status": "deleted",
    }
    assert (await client.get(PLAN)).status_code == 404
    assert (await client.delete(PLAN)).status_code == 404
    again = await client.put(PLAN, json={"value": "fresh", "create_only": True})
    assert again.status_code == 200 and again.json()["revision"] > updated.json()["revision"]


async def test_an_entry_with_a_ttl_disappears(workspace: Workspace) -> None:
    written = await workspace.member.put("/v1/kv/global/lease", json={"value": 1, "ttl_s": 1})
    assert written.json()["expires_at"] is not None
    assert (await workspace.member.get("/v1/kv/global/lease")).status_code == 200
    await asyncio.sleep(1.3)
    assert (await workspace.member.get("/v1/kv/global/lease")).status_code == 404


async def test_listing_a_scope_pages_through_its_keys(workspace: Workspace) -> None:
    for n in range(5):
        answer = await workspace.member.put(f"/v1/kv/team:ops/k{n}", json={"value": n})
        assert answer.status_code == 200
    await workspace.member.put("/v1/kv/global/not-listed", json={"value": 0})

    keys, cursor, values = [], None, []
    for _ in range(5):
        params = {"scope": "team:ops", "limit": 2, "include_values": True}
        page = await workspace.member.get(
            "/v1/kv", params=params | ({"cursor": cursor} if cursor else {})
        )
        assert page.status_code == 200, page.text
        keys += [item["key"] for item in page.json()["items"]]
        values += [item["value"] for item in page.json()["items"]]
        if not (cursor := page.json()["next_cursor"]):
            break
    assert keys == [f"k{n}" for n in range(5)] and values == list(range(5))
    bare = await workspace.member.get("/v1/kv", params={"scope": "team:ops"})
    assert "value" not in bare.json()["items"][0] and bare.json()["items"][0]["size"] == 1


async def test_refusals_name_the_field(workspace: Workspace) -> None:
    cases = [
        ("PUT", "/v1/kv/global/bad key", {"value": 1}, {}, "key"),
        ("PUT", "/v1/kv/nowhere:x/k", {"value": 1}, {}, "scope"),
        ("PUT", "/v1/kv/global/k", {"value": "x" * 20_000}, {}, "value"),
        ("PUT", "/v1/kv/global/k", {"value": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}, {}, "value"),
        ("PUT", "/v1/kv/global/k", {"value": 1, "ttl_s": 0}, {}, "ttl_s"),
        ("PUT", "/v1/kv/global/k", {"value": 1, "ttl_s": 1.5}, {}, "ttl_s"),
        ("PUT", "/v1/kv/global/k", {}, {}, "value"),
        ("PUT", "/v1/kv/global/k", {"value": 1}, {"If-Match": "abc"}, "If-Match"),
        ("PUT", "/v1/kv/global/k", {"value": 1}, {"If-None-Match": "x"}, "If-None-Match"),
        ("PUT", "/v1/kv/global/k", {"value": 1, "revision": 0}, {}, "revision"),
        ("GET", "/v1/kv?scope=global&cursor=nope", None, {}, "cursor"),
        ("GET", "/v1/kv?scope=global&limit=0", None, {}, "limit"),
        ("GET", "/v1/kv", None, {}, "scope"),
    ]
    for method, path, body, headers, field in cases:
        answer = await workspace.member.request(method, path, json=body, headers=headers)
        assert answer.status_code == 422, (path, body, answer.text)
        assert field in [p["field"] for p in answer.json()["problems"]], (field, answer.text)


async def test_a_viewer_is_refused_and_an_agent_stays_in_its_tree(
    stack: Stack, workspace: Workspace
) -> None:
    await workspace.member.put("/v1/kv/global/banner", json={"value": "hello"})
    for method, path in (
        ("GET", "/v1/kv/global/banner"),
        ("GET", "/v1/kv?scope=global"),
        ("PUT", "/v1/kv/global/banner"),
        ("DELETE", "/v1/kv/global/banner"),
    ):
        answer = await workspace.reader.request(method, path, json={"value": "defaced"})
        assert answer.status_code == 403, (method, path, answer.text)

    bob = Principal(workspace.id, "bob", Role.AGENT, "product:ios/agent:bob")
    async with stack.client(await stack.infra.tokens.issue(bob)) as agent:
        assert (await agent.get("/v1/kv/global/banner")).json()["value"] == "hello"
        assert (await agent.put("/v1/kv/global/banner", json={"value": 1})).status_code == 403
        own = await agent.put("/v1/kv/product:ios/agent:bob/notes", json={"value": [1]})
        assert own.status_code == 200
        assert (await agent.get("/v1/kv/product:android/x")).status_code == 403
    assert (await workspace.member.get("/v1/kv/product:ios/agent:bob/notes")).status_code == 403
    assert (await workspace.member.get("/v1/kv/global/banner")).json()["value"] == "hello"


async def test_writes_are_in_the_audit_log(stack: Stack, workspace: Workspace) -> None:
    await workspace.member.put("/v1/kv/global/audited", json={"value": 1})
    await workspace.reader.put("/v1/kv/global/audited", json={"value": 2})
    await workspace.member.delete("/v1/kv/global/audited")
    admin = Principal(workspace.id, "root", Role.ADMIN)
    async with stack.client(await stack.infra.tokens.issue(admin)) as client:
        page = await client.get("/v1/admin/audit", params={"target": "kv:global/audited"})
    entries = [(e["action"], e["user"], e["outcome"]) for e in page.json()["items"]]
    assert entries == [
        ("kv_delete", "agent", "ok"),
        ("kv_put", "guest", "denied"),
        ("kv_put", "agent", "ok"),
    ]


async def test_concurrent_writers_over_http_never_lose_an_update(workspace: Workspace) -> None:
    path = "/v1/kv/global/counter"
    await workspace.member.put(path, json={"value": 0})

    async def add_one(client: httpx.AsyncClient) -> None:
        while True:
            current = await client.get(path)
            body = {"value": current.json()["value"] + 1}
            answer = await client.put(
                path, json=body, headers={"If-Match": current.headers["ETag"]}
            )
            if answer.status_code == 200:
                return
            assert answer.status_code == 409, answer.text

    await asyncio.gather(*(add_one(workspace.member) for _ in range(10)))
    assert (await workspace.member.get(path)).json()["value"] == 10


async def test_agents_keep_state_through_mcp(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    """The official SDK over streamable HTTP: the same entries, revisions and refusals."""
    bob = Principal(workspace.id, "bob", Role.AGENT, "product:ios/team:mobile/agent:bob")
    eve = Principal(workspace.id, "eve", Role.AGENT, "product:ios/team:mobile/agent:eve")
    mine = {"scope": "product:ios/team:mobile/agent:bob", "key": "todo"}
    async with session(gateway_url, await stack.infra.tokens.issue(bob)) as agent:
        stored = await agent.call_tool("set_state", mine | {"value": ["ship 2.1"]})
        assert not stored.is_error, text(stored)
        revision = stored.structured_content["revision"]
        shared = await agent.call_tool(
            "set_state", {"scope": "product:ios/team:mobile", "key": "board", "value": {"n": 1}}
        )
        updated = await agent.call_tool(
            "set_state", mine | {"value": ["ship 2.1", "tag"], "revision": revision}
        )
        stale = await agent.call_tool("set_state", mine | {"value": [], "revision": revision})
        listed = await agent.call_tool("list_state", {"scope": mine["scope"]})
    async with session(gateway_url, await stack.infra.tokens.issue(eve)) as sibling:
        peek = await sibling.call_tool("get_state", mine)
        board = await sibling.call_tool(
            "get_state", {"scope": "product:ios/team:mobile", "key": "board"}
        )
    async with session(gateway_url, await stack.token(workspace.id, member=False)) as viewer:
        refused = await viewer.call_tool("list_state", {"scope": "global"})

    assert not shared.is_error and not updated.is_error
    assert stale.is_error and text(stale).startswith("Conflict (409)")
    assert [i["key"] for i in listed.structured_content["items"]] == ["todo"]
    assert peek.is_error and text(peek).startswith("Not allowed (403)")
    assert board.structured_content["value"] == {"n": 1}
    assert refused.is_error and text(refused).startswith("Not allowed (403)")
    rest = await workspace.member.get("/v1/kv/product:ios/team:mobile/board")
    assert rest.json()["updated_by"] == "bob"
