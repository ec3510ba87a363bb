"""Bulletins and skills as read-only MCP resources, through the official SDK client over the
fake API (both connection modes): templates, the listing, reads, refusals, the capabilities
each server declares, and the list-changed notice the stdio bridge sends."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ResourceListChangedNotification
from memhive_query.mcp.server import build_mcp_server

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi
from tests.unit.mcp.test_memory_flows import call


async def crystallized(client: Client, body: str, name: str) -> str:
    saved = await call(client, "save_memory", kind="procedure", body=body)
    memory_id = saved.structured_content["id"]
    await call(client, "crystallize_memory", id=memory_id, name=name)
    return memory_id


async def test_templates_name_every_bulletin_and_skill(connect: Connect) -> None:
    async with connect() as client:
        templates = (await client.list_resource_templates()).resource_templates

    found = {t.uri_template: t for t in templates}
    assert set(found) == {"memhive://bulletins/{+scope}", "memhive://skills/{memory_id}"}
    assert {t.mime_type for t in templates} == {"text/markdown"}
    assert all(len(t.description or "") > 40 for t in templates)


async def test_the_listing_has_the_workspace_and_product_bulletins_and_the_skills(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    fake_api.product_ids = ["ios", "web"]
    async with connect() as client:
        skill_id = await crystallized(client, "Release with make ship", "ship-it")
        await call(client, "save_memory", kind="procedure", body="Not a skill: run make lint")
        listed = (await client.list_resources()).resources

    assert [r.uri for r in listed] == [
        "memhive://bulletins/global",
        "memhive://bulletins/product:ios",
        "memhive://bulletins/product:web",
        f"memhive://skills/{skill_id}",
    ]
    assert listed[-1].name == "ship-it" and listed[-1].mime_type == "text/markdown"


async def test_reading_a_bulletin_of_any_node_and_a_skill(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        skill_id = await crystallized(client, "Release with make ship", "ship-it")
        bulletin = await client.read_resource("memhive://bulletins/product:ios/team:mobile")
        skill = await client.read_resource(f"memhive://skills/{skill_id}")

    assert ("bulletin", {"scope_path": "product:ios/team:mobile"}) in fake_api.calls
    assert bulletin.contents[0].mime_type == "text/markdown"
    assert skill.contents[0].text.startswith("---\nname: ship-it\n---")
    assert "Release with make ship" in skill.contents[0].text


async def test_refusals_are_mcp_errors_with_the_reason(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("memhive://skills/mem_9999")
        fake_api.unreachable = True
        with pytest.raises(MCPError) as down:
            await client.read_resource("memhive://bulletins/global")

    assert "Not found (404)" in unknown.value.error.message
    assert "memhive is unavailable (503)" in down.value.error.message


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_gateway_server_declares_no_change_notices(mode: str) -> None:
    """Mounted over stateless HTTP, nothing can carry a notice: none is declared."""
    server = build_mcp_server(FakeMemoryApi)
    async with Client(server, mode=mode) as client:
        capabilities = client.server_capabilities

    assert capabilities.resources.list_changed is False
    assert capabilities.resources.subscribe is False
    assert capabilities.tools.list_changed is False


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_bridge_declares_resource_changes_only(mode: str) -> None:
    api = FakeMemoryApi()
    server = build_mcp_server(lambda: api, announces_resource_changes=True)
    async with Client(server, mode=mode) as client:
        capabilities = client.server_capabilities

    assert capabilities.resources.list_changed is True
    assert capabilities.resources.subscribe is False
    assert capabilities.tools.list_changed is False
    assert capabilities.prompts.list_changed is False


async def test_the_bridge_tells_a_handshake_client_when_a_skill_appears() -> None:
    api = FakeMemoryApi()
    notices: list[object] = []
    heard = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(getattr(message, "root", message), ResourceListChangedNotification):
            notices.append(message)
            heard.set()

    server = build_mcp_server(lambda: api, announces_resource_changes=True)
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        saved = await call(client, "save_memory", kind="procedure", body="Ship with make ship")
        await call(client, "update_memory", id=saved.structured_content["id"], pinned=True)
        assert notices == []  # not a change of the list
        await call(client, "crystallize_memory", id=saved.structured_content["id"])
        with anyio.fail_after(5):
            await heard.wait()
        await call(client, "crystallize_memory", id=saved.structured_content["id"])  # again
        await anyio.sleep(0.1)
    assert len(notices) == 1  # the second crystallize changed nothing


async def test_the_bridge_tells_a_listening_client_when_a_skill_goes() -> None:
    api = FakeMemoryApi()
    server = build_mcp_server(lambda: api, announces_resource_changes=True)
    async with Client(server, mode="auto") as client:
        skill_id = await crystallized(client, "Ship with make ship", "ship-it")
        async with client.listen(resources_list_changed=True) as subscription:
            await call(client, "forget_memory", id=skill_id)
            with anyio.fail_after(5):
                event = await anext(aiter(subscription))
        listed = (await client.list_resources()).resources

    assert type(event).__name__ == "ResourcesListChanged"
    assert f"memhive://skills/{skill_id}" not in [r.uri for r in listed]
