"""Skills: confirmations make a procedure a promotion candidate; crystallizing answers a
SKILL.md with provenance, marks the memory promoted, and the skill downloads."""

from __future__ import annotations

import yaml

from tests.integration.stack.conftest import Workspace, save


async def test_a_confirmed_procedure_is_a_candidate_then_crystallizes_into_a_skill(
    workspace: Workspace,
) -> None:
    proc = await save(
        workspace.member,
        kind="procedure",
        body="1. Run make release\n2. Push the tag\n3. Announce in #releases",
        visibility="public",
    )
    other = await save(workspace.member, kind="procedure", body="Roll back with make rollback")
    path = f"/v1/memories/{proc['id']}"
    for _ in range(3):
        confirmed = await workspace.member.post(f"{path}/confirmations?wait=indexed")
        assert confirmed.status_code == 200, confirmed.text
    candidates = (await workspace.member.get("/v1/skills/candidates")).json()
    assert [m["id"] for m in candidates["items"]] == [proc["id"]]
    assert candidates["threshold"] == 3

    made = await workspace.member.post(
        f"{path}/crystallize", json={"name": "cut-a-release", "also": [other["id"]]}
    )
    assert made.status_code == 201, made.text
    skill = made.json()
    _, front, steps = skill["skill_md"].split("---\n", 2)
    meta = yaml.safe_load(front)
    assert meta["name"] == "cut-a-release"
    assert [m["id"] for m in meta["metadata"]["memories"]] == [proc["id"], other["id"]]
    assert meta["metadata"]["memories"][0]["confirmations"] == 3
    assert "1. Run make release\n2. Push the tag" in steps
    assert all(m["promoted_at"] for m in skill["memories"])
    assert (await workspace.member.get("/v1/skills/candidates")).json()["items"] == []

    download = await workspace.member.get(
        f"{path}/skill", params={"name": "cut-a-release", "also": other["id"]}
    )
    assert download.status_code == 200
    assert download.headers["content-type"].startswith("text/markdown")
    assert "cut-a-release" in download.headers["content-disposition"]
    assert download.text == skill["skill_md"]


async def test_only_writers_crystallize_only_procedures(workspace: Workspace) -> None:
    fact = await save(workspace.member, kind="fact", body="Releases are cut on Mondays")
    proc = await save(
        workspace.member, kind="procedure", body="Cut with make cut", visibility="public"
    )
    not_procedure = await workspace.member.post(f"/v1/memories/{fact['id']}/crystallize", json={})
    assert not_procedure.status_code == 422
    bad_name = await workspace.member.post(
        f"/v1/memories/{proc['id']}/crystallize", json={"name": "Bad Name"}
    )
    assert {p["field"] for p in bad_name.json()["problems"]} == {"name"}
    refused = await workspace.reader.post(f"/v1/memories/{proc['id']}/crystallize", json={})
    assert refused.status_code == 403


async def test_the_skills_listing_names_what_was_crystallized_and_who_may_read_it(
    workspace: Workspace,
) -> None:
    public = await save(
        workspace.member, kind="procedure", body="Rotate keys with make rotate", visibility="public"
    )
    private = await save(
        workspace.member,
        kind="procedure",
        body="Open the vault with the ops card",
        visibility="private",
    )
    await save(workspace.member, kind="procedure", body="Not crystallized yet: run make lint")
    for proc in (public, private):
        made = await workspace.member.post(f"/v1/memories/{proc['id']}/crystallize", json={})
        assert made.status_code == 201, made.text

    listed = (await workspace.member.get("/v1/skills")).json()
    as_viewer = (await workspace.reader.get("/v1/skills")).json()

    assert [s["id"] for s in listed["items"]] == [private["id"], public["id"]]  # newest first
    rotate = listed["items"][1]
    assert rotate["name"] == "rotate-keys-with-make-rotate"
    assert rotate["download"] == f"/v1/memories/{public['id']}/skill"
    assert rotate["scope_path"] == "global" and rotate["promoted_at"]
    assert [s["id"] for s in as_viewer["items"]] == [public["id"]]
