"""Scope and visibility never leak: list, search and delete see the same set."""

from __future__ import annotations

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save


async def test_a_product_scope_recall_sees_only_that_product(workspace: Workspace) -> None:
    ios = await save(
        workspace.member,
        kind="fact",
        body="Push notifications use APNs with token auth",
        product_id="ios",
    )
    android = await save(
        workspace.member,
        kind="fact",
        body="Push notifications use FCM HTTP v1",
        product_id="android",
    )
    glob = await save(
        workspace.member,
        kind="fact",
        body="Push notifications are rate limited to 5 per hour per user",
    )

    assert set(await recall_ids(workspace.member, "push notifications", product_id="ios")) == {
        ios["id"]
    }
    assert set(await recall_ids(workspace.member, "push notifications", scope="global")) == {
        glob["id"]
    }
    assert set(await recall_ids(workspace.member, "push notifications")) == {
        ios["id"],
        android["id"],
        glob["id"],
    }


async def test_a_scope_with_few_matches_still_fills_its_top_k(workspace: Workspace) -> None:
    for n in range(30):
        await save(
            workspace.member,
            kind="observation",
            body=f"Build {n} of the web app passed all deployment checks",
        )
    rare = await save(
        workspace.member,
        kind="observation",
        body="Deployment checks for the desktop app are manual",
        product_id="desktop",
    )
    assert await recall_ids(
        workspace.member, "deployment checks web app", product_id="desktop"
    ) == [rare["id"]]


async def test_workspaces_are_isolated(stack: Stack, workspace: Workspace) -> None:
    secret = await save(
        workspace.member, kind="fact", body="Project Nightingale launches in September"
    )
    async with stack.client(await stack.token("ws-other-team")) as other:
        assert await recall_ids(other, "Project Nightingale launch") == []
        assert (await other.get(f"/v1/memories/{secret['id']}")).status_code == 404
        assert (await other.delete(f"/v1/memories/{secret['id']}")).status_code == 404
        assert secret["id"] not in [
            m["id"] for m in (await other.get("/v1/memories")).json()["items"]
        ]


async def test_non_members_see_public_memories_only_and_cannot_write(workspace: Workspace) -> None:
    public = await save(
        workspace.member,
        kind="fact",
        body="Our public API is versioned by date",
        visibility="public",
    )
    private = await save(
        workspace.member,
        kind="fact",
        body="Our API keys are stored in the vault",
        visibility="private",
    )

    assert set(await recall_ids(workspace.reader, "our API")) == {public["id"]}
    listed = [m["id"] for m in (await workspace.reader.get("/v1/memories")).json()["items"]]
    assert listed == [public["id"]]
    assert (await workspace.reader.get(f"/v1/memories/{private['id']}")).status_code == 404
    assert (
        await workspace.reader.post("/v1/memories", json={"kind": "fact", "body": "x"})
    ).status_code == 403
    assert (await workspace.reader.delete(f"/v1/memories/{public['id']}")).status_code == 403


async def test_listing_filters_and_pages_newest_first(workspace: Workspace) -> None:
    saved = [
        await save(workspace.member, kind="todo", body=f"Todo number {n}", tags=["sprint-7"])
        for n in range(5)
    ]
    await save(workspace.member, kind="fact", body="Not a todo")
    ids, cursor = [], None
    while True:
        params = {"kind": "todo", "tag": "sprint-7", "limit": 2} | (
            {"cursor": cursor} if cursor else {}
        )
        page = (await workspace.member.get("/v1/memories", params=params)).json()
        ids += [m["id"] for m in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert ids == [m["id"] for m in reversed(saved)]
