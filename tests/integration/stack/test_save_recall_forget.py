"""The spine over the real bus: save, recall from another client, forget from every lane."""

from __future__ import annotations

import asyncio

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save


async def test_a_saved_memory_is_recalled_by_meaning_and_by_keyword(workspace: Workspace) -> None:
    swift = await save(
        workspace.member, kind="fact", body="The iOS app is written in Swift and targets iOS 17"
    )
    await save(
        workspace.member,
        kind="decision",
        body="We chose PostgreSQL over MySQL for the billing service",
    )
    await save(
        workspace.member, kind="preference", body="Alice prefers tabs over spaces in Go code"
    )

    assert (
        await recall_ids(workspace.member, "which programming language does the mobile app use?")
    )[0] == swift["id"]
    assert (await recall_ids(workspace.member, "PostgreSQL billing"))[0] != swift["id"]


async def test_recall_hydrates_from_the_record(workspace: Workspace) -> None:
    saved = await save(
        workspace.member,
        kind="goal",
        body="Ship offline mode for the Android app by March",
        importance=0.9,
        tags=["android"],
    )
    response = await workspace.member.post("/v1/recall", json={"query": "offline mode android"})
    top = response.json()["results"][0]
    assert top["id"] == saved["id"]
    assert (top["kind"], top["importance"], top["tags"]) == ("goal", 0.9, ["android"])
    assert top["score"] > 0 and set(top["lane_ranks"]) == {"vector", "lexical"}


async def test_forget_removes_the_memory_from_both_lanes_and_the_api(
    stack: Stack, workspace: Workspace
) -> None:
    kept = await save(workspace.member, kind="fact", body="The staging cluster runs in eu-west-1")
    gone = await save(
        workspace.member, kind="fact", body="The staging database password rotates every 30 days"
    )

    response = await workspace.member.delete(f"/v1/memories/{gone['id']}?wait=indexed")
    assert response.status_code == 200 and response.json()["status"] == "forgotten"

    vector, lexical = await stack.infra.lanes()
    assert await vector.present(workspace.id, [gone["id"], kept["id"]]) == {kept["id"]}
    assert await lexical.present(workspace.id, [gone["id"], kept["id"]]) == {kept["id"]}
    for lanes in (["vector"], ["lexical"], None):
        ids = await recall_ids(workspace.member, "staging database password", lanes=lanes)
        assert gone["id"] not in ids
    assert (await workspace.member.get(f"/v1/memories/{gone['id']}")).status_code == 404
    assert (await workspace.member.delete(f"/v1/memories/{gone['id']}")).status_code == 404
    stored = await stack.infra.store.get(workspace.id, gone["id"])
    assert stored.memory.forgotten and stored.memory.revision == 2  # history kept in the record


async def test_get_returns_the_saved_memory(workspace: Workspace) -> None:
    saved = await save(
        workspace.member,
        kind="todo",
        body="Rotate the signing keys",
        scope="product",
        product_id="ios",
    )
    response = await workspace.member.get(f"/v1/memories/{saved['id']}")
    assert response.status_code == 200
    assert response.json() == saved["memory"]


async def test_recalls_are_counted_off_the_hot_path(stack: Stack, workspace: Workspace) -> None:
    saved = await save(
        workspace.member, kind="fact", body="The on-call rotation changes every Monday at 9am"
    )
    for _ in range(3):
        assert saved["id"] in await recall_ids(workspace.member, "when does on-call rotate?")
    for _ in range(100):
        memory = (await stack.infra.store.get(workspace.id, saved["id"])).memory
        if memory.access_count >= 3:
            break
        await asyncio.sleep(0.05)
    assert memory.access_count == 3 and memory.last_accessed_at is not None
    assert memory.revision == 1  # bookkeeping, not a change of meaning


async def test_wait_accepted_returns_before_persistence_and_the_memory_still_lands(
    stack: Stack, workspace: Workspace
) -> None:
    response = await workspace.member.post(
        "/v1/memories?wait=accepted",
        json={"kind": "event", "body": "Release 4.2 shipped to the App Store"},
    )
    assert response.status_code == 202 and response.json()["status"] == "accepted"
    memory_id = response.json()["id"]
    for _ in range(200):
        if await stack.infra.store.get(workspace.id, memory_id):
            break
        await asyncio.sleep(0.05)
    assert (await workspace.member.get(f"/v1/memories/{memory_id}")).status_code == 200
