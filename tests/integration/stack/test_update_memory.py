"""PATCH /v1/memories/{id}: every changeable field through the log, a revision each; a new
body is re-embedded, re-indexed and checked for near-duplicates; flags and confirmations."""

from __future__ import annotations

from tests.integration.stack.conftest import Workspace, recall_ids, save


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
    bad = await workspace.member.patch(path, json={"pinned": "sometimes", "colour": "x"})
    assert bad.status_code == 422
    assert {p["field"] for p in bad.json()["problems"]} == {"pinned", "colour"}


async def test_a_new_body_is_reindexed_in_both_lanes_and_every_field_changes(
    workspace: Workspace,
) -> None:
    saved = await save(workspace.member, kind="fact", body="The staging database is Postgres 14")
    path = f"/v1/memories/{saved['id']}"
    changed = await workspace.member.patch(
        f"{path}?wait=indexed",
        json={
            "body": "The staging database is CockroachDB",
            "importance": 0.95,
            "tags": ["infra", "DB"],
            "visibility": "public",
            "expires_at": "2999-01-01T00:00:00Z",
        },
    )
    assert changed.status_code == 200, changed.text
    memory = changed.json()["memory"]
    assert (memory["body"], memory["importance"], memory["tags"]) == (
        "The staging database is CockroachDB",
        0.95,
        ["infra", "db"],
    )
    assert (memory["visibility"], memory["revision"], memory["corrections"]) == ("public", 2, 1)
    assert memory["expires_at"].startswith("2999-01-01")
    assert await recall_ids(workspace.member, "CockroachDB", lanes=["lexical"]) == [saved["id"]]
    assert await recall_ids(workspace.member, "Postgres 14", lanes=["lexical"]) == []
    assert saved["id"] in await recall_ids(workspace.member, "cockroach", lanes=["vector"])
    assert saved["id"] in await recall_ids(workspace.reader, "CockroachDB")  # now public

    never = await workspace.member.patch(f"{path}?wait=indexed", json={"expires_at": None})
    assert never.json()["memory"]["expires_at"] is None
    history = (await workspace.member.get(f"{path}/revisions")).json()["revisions"]
    assert [r["revision"] for r in history] == [1, 2, 3]


async def test_a_body_that_duplicates_another_memory_is_refused_unless_forced(
    workspace: Workspace,
) -> None:
    first = await save(workspace.member, kind="fact", body="Lunch is served at noon in room 4")
    second = await save(workspace.member, kind="fact", body="The fire drill is on Friday")
    path = f"/v1/memories/{second['id']}"
    refused = await workspace.member.patch(path, json={"body": first["memory"]["body"]})
    assert refused.status_code == 409
    assert [s["id"] for s in refused.json()["similar"]] == [first["id"]]
    assert (await workspace.member.get(path)).json()["revision"] == 1
    forced = await workspace.member.patch(
        path, json={"body": first["memory"]["body"], "force": True}
    )
    assert forced.json()["status"] == "updated"


async def test_bad_changes_name_their_fields(workspace: Workspace) -> None:
    saved = await save(workspace.member, kind="fact", body="Builds run on two runners")
    path = f"/v1/memories/{saved['id']}"
    # What the OpenAPI document states is checked first, every field at once; then the
    # domain's rules it cannot state (a future expiry) and the visible text.
    bad = await workspace.member.patch(
        path, json={"importance": 7, "tags": ["No Way"], "visibility": "secret"}
    )
    assert bad.status_code == 422
    assert {p["field"] for p in bad.json()["problems"]} == {"importance", "tags", "visibility"}
    bad = await workspace.member.patch(
        path, json={"body": "  ", "tags": ["ok"], "expires_at": "2001-01-01T00:00:00Z"}
    )
    assert bad.status_code == 422
    assert {p["field"] for p in bad.json()["problems"]} == {"body", "expires_at"}
    assert (await workspace.member.patch(path, json={})).status_code == 422
    missing = await workspace.member.patch(
        "/v1/memories/00000000-0000-0000-0000-000000000001", json={"pinned": True}
    )
    assert missing.status_code == 404


async def test_flags_lower_trust_are_listed_and_cleared_and_confirmations_raise_it(
    workspace: Workspace,
) -> None:
    saved = await save(
        workspace.member, kind="procedure", body="To deploy, run make ship", visibility="public"
    )
    path = f"/v1/memories/{saved['id']}"
    trust = saved["memory"]["trust"]
    flagged = await workspace.member.post(
        f"{path}/flags?wait=indexed", json={"kind": "outdated", "reason": "we use argo now"}
    )
    assert flagged.status_code == 201, flagged.text
    flag_id = flagged.json()["flag_id"]
    memory = flagged.json()["memory"]
    assert memory["trust"] < trust and memory["staleness"] == 1.0
    listed = (await workspace.member.get(f"{path}/flags")).json()["items"]
    assert [(f["id"], f["kind"], f["reason"]) for f in listed] == [
        (flag_id, "outdated", "we use argo now")
    ]
    assert (
        await workspace.reader.post(f"{path}/flags", json={"kind": "wrong", "reason": "x"})
    ).status_code == 403
    bad = await workspace.member.post(f"{path}/flags", json={"kind": "meh", "reason": ""})
    assert {p["field"] for p in bad.json()["problems"]} == {"kind", "reason"}

    cleared = await workspace.member.delete(f"{path}/flags", params={"flag_id": flag_id})
    assert cleared.json()["memory"]["flags"] == []
    assert cleared.json()["memory"]["trust"] == trust

    confirmed = await workspace.member.post(f"{path}/confirmations")
    assert confirmed.status_code == 200
    memory = confirmed.json()["memory"]
    assert memory["confirmations"] == 1 and memory["trust"] > trust
