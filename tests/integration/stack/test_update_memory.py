"""PATCH /v1/memories/{id}: pin and unpin through the log, a revision each."""

from __future__ import annotations

from tests.integration.stack.conftest import Workspace, save


async def test_pin_and_unpin_are_revisions_members_only(workspace: Workspace) -> None:
    saved = await save(workspace.member, kind="decision", body="Releases ship on Tuesdays")
    public = await save(
        workspace.member, kind="fact", body="Docs live in the wiki", visibility="public"
    )
    path = f"/v1/memories/{saved['id']}"

    pinned = await workspace.member.patch(f"{path}?wait=indexed", json={"pinned": True})
    assert pinned.status_code == 200 and pinned.json()["status"] == "updated"
    memory = (await workspace.member.get(path)).json()
    assert (memory["pinned"], memory["revision"]) == (True, 2)
    again = await workspace.member.patch(path, json={"pinned": True})
    assert again.json()["status"] == "unchanged"

    unpinned = await workspace.member.patch(path, json={"pinned": False})
    assert unpinned.json()["status"] == "updated"
    assert (await workspace.member.get(path)).json()["revision"] == 3
    revisions = (await workspace.member.get(f"{path}/revisions")).json()["revisions"]
    assert [r["revision"] for r in revisions] == [1, 2, 3]

    refused = await workspace.reader.patch(f"/v1/memories/{public['id']}", json={"pinned": True})
    assert refused.status_code == 403
    bad = await workspace.member.patch(path, json={"pinned": "sometimes", "body": "x"})
    assert bad.status_code == 422
    assert {p["field"] for p in bad.json()["problems"]} == {"pinned", "body"}
