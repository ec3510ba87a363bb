"""Concurrent callers (issue 10): identical saves store one memory; a link racing a forget
never answers 202 `accepted` for a link that will not be applied."""

from __future__ import annotations

import asyncio

from tests.integration.stack.conftest import Workspace, recall_ids, save

CLIENTS = 16


async def test_identical_concurrent_saves_store_one_memory(workspace: Workspace) -> None:
    body = "The on-call rotation hands over every Monday at 09:00 Berlin time"
    responses = await asyncio.gather(
        *(
            workspace.member.post("/v1/memories", json={"kind": "fact", "body": body})
            for _ in range(CLIENTS)
        )
    )

    assert {r.status_code for r in responses} <= {200, 201}, [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    statuses = sorted(r.json()["status"] for r in responses)
    assert statuses == ["duplicate"] * (CLIENTS - 1) + ["indexed"]  # the default wait
    # Indexed once: a later save with wait=indexed sees it, and recall returns it once.
    again = await workspace.member.post(
        "/v1/memories?wait=indexed", json={"kind": "fact", "body": body}
    )
    assert again.json()["status"] == "duplicate"
    listed = (await workspace.member.get("/v1/memories")).json()["items"]
    assert [m["id"] for m in listed] == [responses[0].json()["id"]]
    assert await recall_ids(workspace.member, "when does on-call hand over?") == [
        responses[0].json()["id"]
    ]


async def test_saving_a_forgotten_body_again_makes_a_new_memory(workspace: Workspace) -> None:
    body = "Feature flags are cleaned up at the end of every quarter"
    first = await save(workspace.member, kind="fact", body=body, force=False)
    await workspace.member.delete(f"/v1/memories/{first['id']}?wait=indexed")

    second = await save(workspace.member, kind="fact", body=body, force=False)
    third = await workspace.member.post("/v1/memories", json={"kind": "fact", "body": body})

    assert second["id"] != first["id"]
    assert (third.status_code, third.json()["id"]) == (200, second["id"])


async def test_a_link_racing_a_forget_is_never_falsely_accepted(workspace: Workspace) -> None:
    pairs = [
        (
            await save(workspace.member, kind="fact", body=f"Service {i} runs in region eu-{i}"),
            await save(workspace.member, kind="fact", body=f"Service {i} moved to region us-{i}"),
        )
        for i in range(CLIENTS // 2)
    ]

    async def link(src: dict, dst: dict):
        edge = {"src_id": dst["id"], "dst_id": src["id"], "kind": "updates"}
        return await workspace.member.post("/v1/edges", json=edge)

    async def forget(memory: dict):
        return await workspace.member.delete(f"/v1/memories/{memory['id']}")

    results = await asyncio.gather(
        *(call for old, new in pairs for call in (link(old, new), forget(old)))
    )
    links = results[0::2]

    assert all(r.status_code in (201, 404, 409, 422) for r in links), [
        (r.status_code, r.text) for r in links
    ]
    for response, (old, _) in zip(links, pairs, strict=True):
        if response.status_code == 409:
            assert "not" in response.json()["detail"] and old["id"] in response.json()["detail"]


async def test_a_change_racing_a_forget_is_never_falsely_accepted(workspace: Workspace) -> None:
    memories = [
        await save(workspace.member, kind="fact", body=f"Queue {i} drains every {i + 2} minutes")
        for i in range(CLIENTS // 2)
    ]

    async def change(memory: dict):
        path = f"/v1/memories/{memory['id']}"
        return await workspace.member.patch(path, json={"importance": 0.9, "tags": ["ops"]})

    async def forget(memory: dict):
        return await workspace.member.delete(f"/v1/memories/{memory['id']}")

    started = asyncio.get_running_loop().time()
    results = await asyncio.gather(*(call for m in memories for call in (change(m), forget(m))))
    changes = results[0::2]

    # Applied before the forget (200), refused because the forget came first (409), or the
    # memory already gone when the change was asked (404): never a 202 that will not happen.
    assert all(r.status_code in (200, 404, 409) for r in changes), [
        (r.status_code, r.text) for r in changes
    ]
    for response, memory in zip(changes, memories, strict=True):
        if response.status_code == 409:
            assert memory["id"] in response.json()["detail"]
        if response.status_code == 200:  # "updated" means the log holds the change
            history = await workspace.member.get(f"/v1/memories/{memory['id']}/revisions")
            assert ["ops"] in [r["tags"] for r in history.json()["revisions"]], history.text
    # A refusal is told at once, not after the wait for an event that never comes.
    assert asyncio.get_running_loop().time() - started < 5
