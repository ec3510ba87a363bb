"""The scope tree through the running stack: nodes below the first level, legacy scopes,
products as records, visibility inheritance from the gateway and from the bus."""

from __future__ import annotations

import uuid

from memhive.v1 import memory_pb2 as pb
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_ingest_on_the_bus import _publish_raw, _save_command, _wait_for

TEAM = "product:ios/team:mobile"
BOB = f"{TEAM}/agent:bob"


async def client_for(stack: Stack, workspace: Workspace, role: Role, home: str):
    principal = Principal(workspace.id, f"{role.value}-{uuid.uuid4().hex[:6]}", role, home)
    return stack.client(await stack.infra.tokens.issue(principal))


async def test_legacy_scopes_name_their_node_exactly_and_keep_working(
    workspace: Workspace,
) -> None:
    product = await save(workspace.member, kind="fact", body="iOS ships weekly", product_id="ios")
    team = await save(
        workspace.member, kind="fact", body="Mobile pairs on Fridays", scope_path=TEAM
    )
    assert (team["memory"]["scope"], team["memory"]["product_id"]) == ("product", "ios")
    assert (team["memory"]["team_id"], team["memory"]["agent_id"]) == ("mobile", None)

    legacy = await workspace.member.get("/v1/memories", params={"product_id": "ios"})
    by_path = await workspace.member.get("/v1/memories", params={"scope_path": TEAM})
    everything = await workspace.member.get("/v1/memories")
    assert [m["id"] for m in legacy.json()["items"]] == [product["id"]]
    assert [m["id"] for m in by_path.json()["items"]] == [team["id"]]
    assert {m["id"] for m in everything.json()["items"]} == {product["id"], team["id"]}


async def test_an_agent_keeps_local_memory_its_team_lead_cannot_read(
    stack: Stack, workspace: Workspace
) -> None:
    bob = await client_for(stack, workspace, Role.AGENT, BOB)
    lead = await client_for(stack, workspace, Role.MEMBER, TEAM)
    async with bob, lead:
        scratch = await save(bob, kind="observation", body="Flaky test in LoginFlowTests")
        handoff = await save(bob, kind="todo", body="Finish the login retry", scope_path=TEAM)
        assert scratch["memory"]["scope_path"] == BOB  # no node named: the agent's home
        assert scratch["memory"]["visibility"] == "private"

        lead_sees = [m["id"] for m in (await lead.get("/v1/memories")).json()["items"]]
        assert handoff["id"] in lead_sees and scratch["id"] not in lead_sees
        assert (await lead.get(f"/v1/memories/{scratch['id']}")).status_code == 404
        assert (await lead.get(f"/v1/bulletins/{BOB}")).status_code == 403
        refused = await bob.post(
            "/v1/memories", json={"kind": "fact", "body": "x", "scope_path": "global"}
        )
        assert refused.status_code == 403 and "global" in refused.json()["detail"]

        own = (await bob.get(f"/v1/bulletins/{BOB}")).json()
        assert own["scope_path"] == BOB and own["memory_ids"] == [scratch["id"]]


async def test_products_are_records_whose_visibility_memories_inherit(
    stack: Stack, workspace: Workspace
) -> None:
    put = await workspace.member.put(
        "/v1/products/ios", json={"visibility": "public", "name": "iOS app"}
    )
    assert put.status_code == 200, put.text
    assert (await workspace.reader.get("/v1/products")).json()["items"][0]["name"] == "iOS app"
    assert (await workspace.reader.get("/v1/products/android")).status_code == 404
    refused = await workspace.reader.put("/v1/products/ios", json={"visibility": "private"})
    assert refused.status_code == 403
    async with await client_for(stack, workspace, Role.AGENT, "global") as agent:
        refused = await agent.put("/v1/products/ios", json={"visibility": "private"})
        assert refused.status_code == 403, refused.text
        assert "only workspace members can" in refused.json()["detail"]  # the policy's words
        assert (await agent.get("/v1/products/ios")).json()["visibility"] == "public"

    inherited = await save(
        workspace.member, kind="fact", body="Builds on Xcode 16", product_id="ios"
    )
    explicit = await save(
        workspace.member, kind="fact", body="Signing keys rotate", product_id="ios",
        visibility="private",
    )  # fmt: skip
    at_root = await save(workspace.member, kind="fact", body="The company is called Acme")
    unknown = await save(workspace.member, kind="fact", body="Android uses Gradle", product_id="a")
    assert inherited["memory"]["visibility"] == "public"
    assert explicit["memory"]["visibility"] == "private"
    assert at_root["memory"]["visibility"] == "public"  # Hive: global defaults to public
    assert unknown["memory"]["visibility"] == "private"  # no record: private

    bad = await workspace.member.put("/v1/products/ios", json={"visibility": "secret"})
    assert bad.status_code == 422 and "visibility" in bad.text


async def test_a_bus_command_lands_on_its_node_and_inherits_the_products_visibility(
    stack: Stack, workspace: Workspace
) -> None:
    await workspace.member.put("/v1/products/ios", json={"visibility": "public"})
    command = _save_command(workspace.id, "The mobile team owns push notifications")
    command.memory.scope = pb.SCOPE_PRODUCT
    command.memory.product_id, command.memory.team_id = "ios", "mobile"
    await _publish_raw(stack, workspace.id, command.SerializeToString(), command.command_id)

    async def stored():
        return await stack.infra.store.get(workspace.id, command.memory.id)

    memory = (await _wait_for(stored)).memory
    assert memory.scope_ref.key == TEAM and memory.visibility.value == "public"
