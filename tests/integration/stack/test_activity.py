"""Recent activity on the real stack: what was saved, updated, linked, recalled and forgotten,
newest first, from the log; nothing another principal may not read (tenancy); over REST,
MCP (the official SDK) and the Python client."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
from memhive_client import AsyncMemhiveClient
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_mcp_tools import session, text


async def activity_items(client: httpx.AsyncClient, **params) -> list[dict]:
    """Every page, newest first."""
    items, cursor = [], None
    for _ in range(50):
        query = params | ({"cursor": cursor} if cursor else {})
        page = await client.get("/v1/activity", params=query)
        assert page.status_code == 200, page.text
        items += page.json()["items"]
        if not (cursor := page.json()["next_cursor"]):
            return items
    raise AssertionError("the activity never ended")


async def until(check, timeout_s: float = 10.0):
    """Recall hits are recorded in the background: wait for them, bounded."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not (result := await check()):
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)
    return result


def story(items: list[dict]) -> list[tuple[str, str]]:
    return [(e["kind"], ",".join(m["id"] for m in e["memories"])) for e in items]


async def test_what_happened_newest_first_with_who_did_it(workspace: Workspace) -> None:
    client = workspace.member
    old = await save(client, kind="fact", body="Deploys go through Jenkins", product_id="ci")
    new = await save(client, kind="fact", body="Deploys go through GitHub Actions", product_id="ci")
    patched = await client.patch(
        f"/v1/memories/{new['id']}?wait=indexed", json={"tags": ["deploy"]}
    )
    assert patched.status_code == 200, patched.text
    link = {"src_id": new["id"], "dst_id": old["id"], "kind": "updates"}
    assert (await client.post("/v1/edges", json=link)).status_code in (200, 201)
    recall = await client.post("/v1/recall", json={"query": "how do we deploy", "product_id": "ci"})
    assert recall.status_code == 200
    await until(lambda: _has_recall(client))
    forgot = await client.delete(f"/v1/memories/{old['id']}?wait=indexed")
    assert forgot.status_code == 200

    items = await activity_items(client)

    kinds = [e["kind"] for e in items]
    assert kinds == ["forgotten", "recalled", "linked", "updated", "saved", "saved"]
    assert {e["actor"] for e in items} == {"agent"}
    forgotten, recalled, linked, updated, *_ = items
    assert forgotten["memories"][0]["id"] == old["id"]
    assert forgotten["memories"][0]["summary"] is None  # gone: no text comes back
    assert recalled["query"] == "how do we deploy"  # the caller's own recall
    assert new["id"] in [m["id"] for m in recalled["memories"]]
    assert linked["edges"] == [{"src_id": new["id"], "dst_id": old["id"], "kind": "updates"}]
    assert updated["memories"][0] == {
        "id": new["id"],
        "kind": "fact",
        "scope_path": "product:ci",
        "revision": 2,
        "summary": "Deploys go through GitHub Actions",
    }
    times = [datetime.fromisoformat(e["time"]) for e in items]
    assert times == sorted(times, reverse=True)

    only = await activity_items(client, kind=["saved", "forgotten"], limit=1)
    assert [e["kind"] for e in only] == ["forgotten", "saved", "saved"]
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    assert await activity_items(client, since=future) == []
    scoped = await activity_items(client, scope="product:ci")
    assert story(scoped) == story(items)
    assert await activity_items(client, scope="product:other") == []


async def _has_recall(client: httpx.AsyncClient) -> bool:
    return bool(await activity_items(client, kind=["recalled"]))


async def test_nobody_sees_activity_they_may_not_read(stack: Stack, workspace: Workspace) -> None:
    """A viewer and a sibling agent see none of another's private activity: not the save,
    not the recall, not the link, not the forget, and no text of it anywhere."""
    bob = Principal(workspace.id, "bob", Role.AGENT, "product:ios/agent:bob")
    eve = Principal(workspace.id, "eve", Role.AGENT, "product:ios/agent:eve")
    bob_client = stack.client(await stack.infra.tokens.issue(bob))
    eve_client = stack.client(await stack.infra.tokens.issue(eve))
    async with bob_client, eve_client:
        secret = await save(
            bob_client,
            kind="fact",
            body="Bob's hunch: the flaky test is the clock",
            scope_path="product:ios/agent:bob",
        )
        other = await save(
            bob_client,
            kind="fact",
            body="Bob's second hunch about timezones",
            scope_path="product:ios/agent:bob",
        )
        shared = await save(
            workspace.member,
            kind="fact",
            body="The wiki lives at wiki.example",
            visibility="public",
        )
        private = await save(
            workspace.member, kind="fact", body="The vault opens with 8121", visibility="private"
        )
        link = {"src_id": other["id"], "dst_id": secret["id"], "kind": "related_to"}
        assert (await bob_client.post("/v1/edges", json=link)).status_code in (200, 201)
        hunt = {"query": "bob hunch flaky clock", "max_results": 5}
        assert (await bob_client.post("/v1/recall", json=hunt)).status_code == 200
        await until(lambda: _has_recall(bob_client))
        assert (await bob_client.delete(f"/v1/memories/{other['id']}?wait=indexed")).is_success

        as_bob = await activity_items(bob_client)
        as_eve = await activity_items(eve_client)
        as_viewer = await activity_items(workspace.reader)
        eve_peeks = await eve_client.get("/v1/activity", params={"scope": "product:ios/agent:bob"})

    bobs = {secret["id"], other["id"]}
    assert bobs <= {m["id"] for e in as_bob for m in e["memories"]}
    assert any(e["kind"] == "recalled" and e["query"] for e in as_bob)
    for seen, allowed in ((as_eve, {shared["id"], private["id"]}), (as_viewer, {shared["id"]})):
        ids = {m["id"] for e in seen for m in e["memories"]}
        assert ids == allowed, seen
        raw = str(seen)
        assert "hunch" not in raw and "bob hunch" not in raw
        assert not [e for e in seen if e["kind"] in ("linked", "forgotten")]
        # bob's recall also hit global memories: they may see that, never his query
        assert all(e["query"] is None for e in seen if e["kind"] == "recalled")
    assert "8121" not in str(as_viewer)
    assert eve_peeks.status_code == 403


async def test_recent_activity_through_mcp_and_the_python_client(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    saved = await save(workspace.member, kind="decision", body="Release trains leave on Tuesdays")
    token = await stack.token(workspace.id)
    async with session(gateway_url, token) as agent:
        result = await agent.call_tool("recent_activity", {"kinds": ["saved"], "limit": 5})
        refused = await agent.call_tool("recent_activity", {"limit": 500})
    assert not result.is_error, text(result)
    assert f"saved by agent: [{saved['id']}] decision at global: Release trains" in text(result)
    assert refused.is_error and "limit" in text(result) + text(refused)

    transport = httpx.ASGITransport(stack.app)
    async with AsyncMemhiveClient("http://memhive", token, transport=transport) as client:
        entries = [e async for e in client.iter_activity(kind=["saved"], page_size=1)]
    assert [e.memories[0].id for e in entries] == [saved["id"]]
    assert entries[0].kind == "saved" and entries[0].actor == "agent"


async def test_bad_queries_name_the_field(workspace: Workspace) -> None:
    for params, field in [
        ({"kind": "shouted"}, "kind"),
        ({"limit": 0}, "limit"),
        ({"cursor": "nope"}, "cursor"),
        ({"since": "2026-01-01T00:00:00"}, "since"),
        ({"scope": "nowhere"}, "scope"),
    ]:
        answer = await workspace.member.get("/v1/activity", params=params)
        assert answer.status_code == 422, answer.text
        assert field in [p["field"] for p in answer.json()["problems"]]
