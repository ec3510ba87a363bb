"""Time over REST and MCP: when a memory happened (occurred_at) beside when it was saved,
both as half-open windows on recall, list and context; expired memories for audits."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from tests.integration.stack.conftest import PURGE_AFTER_S, Stack, Workspace, recall_ids, save
from tests.integration.stack.test_mcp_tools import session, text

TRIP = "2024-05-04T10:00:00Z"
LAUNCH = "2026-03-02T09:00:00Z"


async def listed(workspace: Workspace, **params) -> list[str]:
    answer = await workspace.member.get("/v1/memories", params=params)
    assert answer.status_code == 200, answer.text
    return [m["id"] for m in answer.json()["items"]]


async def test_recall_and_list_by_when_it_happened_and_when_it_was_saved(
    workspace: Workspace,
) -> None:
    trip = await save(workspace.member, kind="event", body="Caroline went hiking", occurred_at=TRIP)
    launch = await save(
        workspace.member, kind="event", body="Caroline launched her shop", occurred_at=LAUNCH
    )
    today = await save(workspace.member, kind="event", body="Caroline opened a second shop")
    assert trip["memory"]["occurred_at"] == "2024-05-04T10:00:00Z"
    assert today["memory"]["occurred_at"] is None

    in_2024 = {"occurred_after": "2024-01-01T00:00:00Z", "occurred_before": "2025-01-01T00:00:00Z"}
    assert await recall_ids(workspace.member, "what did Caroline do", **in_2024) == [trip["id"]]
    assert await listed(workspace, **in_2024) == [trip["id"]]
    # Unsaid, it happened when it was saved: today.
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert await recall_ids(workspace.member, "Caroline shop", occurred_after=since) == [
        today["id"]
    ]
    # [after, before): the launch's own moment is in a window that starts there, not one
    # that ends there.
    assert await listed(workspace, occurred_after=LAUNCH) == [today["id"], launch["id"]]
    assert launch["id"] not in await listed(workspace, occurred_before=LAUNCH)
    # Saved: all three were saved just now.
    saved_today = await listed(workspace, created_after=since)
    assert set(saved_today) == {trip["id"], launch["id"], today["id"]}
    assert await listed(workspace, created_before=since) == []


async def test_the_same_words_at_another_time_are_another_memory(workspace: Workspace) -> None:
    body = {"kind": "event", "body": "The nightly deploy failed"}
    monday = await workspace.member.post(
        "/v1/memories?wait=indexed", json=body | {"occurred_at": "2026-11-16T02:00:00Z"}
    )
    tuesday = await workspace.member.post(
        "/v1/memories?wait=indexed", json=body | {"occurred_at": "2026-11-17T02:00:00Z"}
    )
    again = await workspace.member.post(
        "/v1/memories?wait=indexed", json=body | {"occurred_at": "2026-11-16T02:00:00Z"}
    )
    assert (monday.status_code, tuesday.status_code) == (201, 201), tuesday.text
    assert monday.json()["id"] != tuesday.json()["id"]
    assert (again.status_code, again.json()["id"]) == (200, monday.json()["id"])


async def test_a_change_moves_when_it_happened_and_back(workspace: Workspace) -> None:
    saved = await save(workspace.member, kind="event", body="The offsite took place")
    path = f"/v1/memories/{saved['id']}"
    moved = await workspace.member.patch(f"{path}?wait=indexed", json={"occurred_at": TRIP})
    assert moved.status_code == 200 and moved.json()["memory"]["occurred_at"] == TRIP
    in_may = {"occurred_after": "2024-05-01T00:00:00Z", "occurred_before": "2024-06-01T00:00:00Z"}
    assert await recall_ids(workspace.member, "offsite", **in_may) == [saved["id"]]

    back = await workspace.member.patch(f"{path}?wait=indexed", json={"occurred_at": None})
    assert back.json()["memory"]["occurred_at"] is None
    assert await recall_ids(workspace.member, "offsite", **in_may) == []


async def test_bad_windows_are_422_naming_the_field(workspace: Workspace) -> None:
    backwards = await workspace.member.post(
        "/v1/recall",
        json={"query": "x", "created_after": LAUNCH, "created_before": TRIP},
    )
    assert backwards.status_code == 422
    assert [p["field"] for p in backwards.json()["problems"]] == ["created_before"]
    beyond = await workspace.member.get(
        "/v1/memories", params={"occurred_before": "9999-12-31T23:59:59-12:00"}
    )
    assert beyond.status_code == 422
    assert [p["field"] for p in beyond.json()["problems"]] == ["occurred_before"]
    junk = await workspace.member.post(
        "/v1/context", json={"token_budget": 100, "occurred_after": "last tuesday"}
    )
    assert junk.status_code == 422


async def test_context_packs_only_what_happened_in_the_window(workspace: Workspace) -> None:
    """The node's bulletin comes whole; the memories packed beside it obey the window."""
    old = await save(workspace.member, kind="fact", body="The API used XML", occurred_at=TRIP)
    new = await save(workspace.member, kind="fact", body="The API uses JSON")

    async def packed(**window) -> set[str]:
        pack = await workspace.member.post(
            "/v1/context", json={"query": "API format", "token_budget": 500} | window
        )
        assert pack.status_code == 200, pack.text
        return {item["id"] for item in pack.json()["items"]}

    assert new["id"] not in await packed(occurred_before="2025-01-01T00:00:00Z")
    assert old["id"] not in await packed(occurred_after="2025-01-01T00:00:00Z")
    assert await packed(occurred_before="1990-01-01T00:00:00Z") == set()


async def test_an_expired_memory_is_purged_after_its_retention(
    stack: Stack, workspace: Workspace
) -> None:
    soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    saved = await save(
        workspace.member, kind="todo", body="Renew the TLS certificate", expires_at=soon
    )
    path = f"/v1/memories/{saved['id']}"
    vector, lexical = await stack.infra.lanes()

    deadline = time.monotonic() + 1 + PURGE_AFTER_S + 20
    while (await workspace.member.get(path, params={"include_expired": "true"})).status_code == 200:
        assert time.monotonic() < deadline, "not purged within its retention plus 20 s"
        await asyncio.sleep(0.25)
    while await lexical.count(workspace.id) or await vector.count(workspace.id):
        assert time.monotonic() < deadline, "still in a lane after the purge"
        await asyncio.sleep(0.25)
    assert await stack.infra.store.get(workspace.id, saved["id"]) is None
    revisions = await workspace.member.get(f"{path}/revisions")
    assert revisions.status_code == 404


async def test_expired_memories_are_for_member_audits_only(workspace: Workspace) -> None:
    soon = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    saved = await save(
        workspace.member, kind="todo", body="Rotate the staging keys", expires_at=soon
    )
    await asyncio.sleep(2.5)
    path = f"/v1/memories/{saved['id']}"

    assert saved["id"] not in await listed(workspace)
    assert (await workspace.member.get(path)).status_code == 404
    assert saved["id"] in await listed(workspace, include_expired="true")
    audit = await workspace.member.get(path, params={"include_expired": "true"})
    assert audit.status_code == 200 and audit.json()["id"] == saved["id"]
    for refused in (
        await workspace.reader.get("/v1/memories", params={"include_expired": "true"}),
        await workspace.reader.get(path, params={"include_expired": "true"}),
    ):
        assert refused.status_code == 403


async def test_agents_say_when_over_mcp_and_ask_by_time(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    token = await stack.token(workspace.id)
    async with session(gateway_url, token) as agent:
        trip = await agent.call_tool(
            "save_memory",
            {"kind": "event", "body": "Melanie went camping by the lake", "occurred_at": TRIP},
        )
        later = await agent.call_tool(
            "save_memory", {"kind": "event", "body": "Melanie went camping in the mountains"}
        )
        assert not trip.is_error and not later.is_error, text(later)
        in_may = await agent.call_tool(
            "recall_memory",
            {
                "query": "where did Melanie go camping",
                "occurred_after": "2024-05-01T00:00:00Z",
                "occurred_before": "2024-06-01T00:00:00Z",
            },
        )
        page = await agent.call_tool("list_memories", {"occurred_before": "2025-01-01T00:00:00Z"})
        backwards = await agent.call_tool(
            "recall_memory",
            {"query": "camping", "created_after": LAUNCH, "created_before": TRIP},
        )
    trip_id = trip.structured_content["id"]
    assert [r["id"] for r in in_may.structured_content["results"]] == [trip_id]
    assert f"happened {TRIP}" in text(in_may)
    assert [m["id"] for m in page.structured_content["items"]] == [trip_id]
    assert backwards.is_error and "created_before" in text(backwards)
