"""Bulletins and skills as MCP resources on the real gateway, through the official SDK over
streamable HTTP: listed and read within the caller's view, refusals as MCP errors, and no
change notices declared by the stateless app."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_mcp_tools import session


async def crystallize(workspace: Workspace, body: str, visibility: str, **where) -> str:
    proc = await save(workspace.member, kind="procedure", body=body, visibility=visibility, **where)
    made = await workspace.member.post(f"/v1/memories/{proc['id']}/crystallize", json={})
    assert made.status_code == 201, made.text
    return proc["id"]


async def test_resources_are_listed_and_read_within_the_callers_view(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    answer = await workspace.member.put("/v1/products/ios", json={"visibility": "public"})
    assert answer.status_code == 200, answer.text
    await save(workspace.member, kind="decision", body="iOS builds use Xcode 16", product_id="ios")
    public = await crystallize(workspace, "Rotate keys with make rotate", "public")
    private = await crystallize(workspace, "Open the vault with the ops card", "private")

    async with session(gateway_url, await stack.token(workspace.id)) as member:
        listed = [r.uri for r in (await member.list_resources()).resources]
        bulletin = await member.read_resource("memhive://bulletins/product:ios")
        skill = await member.read_resource(f"memhive://skills/{private}")
        capabilities = member.server_capabilities
    async with session(gateway_url, await stack.token(workspace.id, member=False)) as viewer:
        seen = [r.uri for r in (await viewer.list_resources()).resources]
        with pytest.raises(MCPError) as hidden:
            await viewer.read_resource(f"memhive://skills/{private}")
        readable = await viewer.read_resource(f"memhive://skills/{public}")

    assert listed == [
        "memhive://bulletins/global",
        "memhive://bulletins/product:ios",
        f"memhive://skills/{private}",
        f"memhive://skills/{public}",
    ]
    assert "Xcode 16" in bulletin.contents[0].text
    assert bulletin.contents[0].text.startswith("# Memory bulletin: product:ios")
    assert "Open the vault with the ops card" in skill.contents[0].text
    assert capabilities.resources.list_changed is False  # stateless: nothing to carry one
    assert f"memhive://skills/{private}" not in seen and f"memhive://skills/{public}" in seen
    assert "Not found (404)" in hidden.value.error.message
    assert "Rotate keys" in readable.contents[0].text


async def test_an_agent_reads_no_bulletin_outside_its_tree(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    bob = Principal(workspace.id, "bob", Role.AGENT, "product:ios/agent:bob")
    async with stack.client(await stack.infra.tokens.issue(bob)) as bob_client:
        await save(
            bob_client,
            kind="fact",
            body="Bob keeps a private scratchpad",
            scope_path="product:ios/agent:bob",
        )
    eve = Principal(workspace.id, "eve", Role.AGENT, "product:ios/agent:eve")
    async with session(gateway_url, await stack.infra.tokens.issue(eve)) as agent:
        with pytest.raises(MCPError) as refused:
            await agent.read_resource("memhive://bulletins/product:ios/agent:bob")
        with pytest.raises(MCPError) as malformed:
            await agent.read_resource("memhive://bulletins/nowhere:1")
        own = await agent.read_resource("memhive://bulletins/product:ios/agent:eve")

    assert "Not allowed (403)" in refused.value.error.message
    assert "scratchpad" not in refused.value.error.message
    assert "Invalid arguments (422)" in malformed.value.error.message
    assert own.contents[0].text.startswith("# Memory bulletin: product:ios/agent:eve")


async def test_products_without_a_record_are_listed_from_the_memories_naming_them(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    await save(
        workspace.member, kind="fact", body="Android builds use Gradle 8", product_id="android"
    )
    await save(
        workspace.member,
        kind="fact",
        body="The web app is public",
        product_id="web",
        visibility="public",
    )
    answer = await workspace.member.get("/v1/scopes")
    async with session(gateway_url, await stack.token(workspace.id)) as member:
        listed = [r.uri for r in (await member.list_resources()).resources]
    async with session(gateway_url, await stack.token(workspace.id, member=False)) as viewer:
        seen = [r.uri for r in (await viewer.list_resources()).resources]

    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "items": [
            {"scope_path": "global"},
            {
                "scope_path": "product:android",
                "product_id": "android",
                "name": None,
                "recorded": False,
            },
            {"scope_path": "product:web", "product_id": "web", "name": None, "recorded": False},
        ],
        "complete": True,
    }
    assert listed == [
        "memhive://bulletins/global",
        "memhive://bulletins/product:android",
        "memhive://bulletins/product:web",
    ]
    assert seen == ["memhive://bulletins/global", "memhive://bulletins/product:web"]
