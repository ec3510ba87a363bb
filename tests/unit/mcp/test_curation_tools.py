"""update_memory, flag_memory and confirm_memory through an MCP session over the fake API."""

from __future__ import annotations

from mcp import Client

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi
from tests.unit.mcp.test_memory_flows import call, text_of


async def saved_id(client: Client) -> str:
    saved = await call(client, "save_memory", kind="procedure", body="Deploy with make ship")
    return saved.structured_content["id"]


async def test_update_sends_only_the_fields_given_and_says_what_changed(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        memory_id = await saved_id(client)
        updated = await call(
            client, "update_memory", id=memory_id, body="Deploy with argo", never_expires=True
        )
        same = await call(client, "update_memory", id=memory_id, body="Deploy with argo")

    assert fake_api.calls[1] == (
        "update",
        (memory_id, {"body": "Deploy with argo", "expires_at": None}),
    )
    assert updated.structured_content["memory"]["revision"] == 2
    assert "Updated memory" in text_of(updated) and "Deploy with argo" in text_of(updated)
    assert "nothing changed" in text_of(same)


async def test_flag_and_confirm_show_the_new_trust(connect: Connect) -> None:
    async with connect() as client:
        memory_id = await saved_id(client)
        flagged = await call(
            client, "flag_memory", id=memory_id, kind="outdated", reason="we moved to argo"
        )
        confirmed = await call(client, "confirm_memory", id=memory_id)
        recalled = await call(client, "recall_memory", query="deploy")

    assert "trust is now 0.20" in text_of(flagged)
    assert "1 confirmations, trust 0.30" in text_of(confirmed)
    assert "FLAGGED outdated" in text_of(recalled)


async def test_a_bad_flag_is_a_tool_error_naming_the_field(connect: Connect) -> None:
    async with connect() as client:
        memory_id = await saved_id(client)
        result = await client.call_tool(
            "flag_memory", {"id": memory_id, "kind": "suspicious", "reason": "hm"}
        )
    assert result.is_error and "kind" in text_of(result)


async def test_consolidate_merges_and_refuses_a_single_id(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        first, second = await saved_id(client), await saved_id_of(client, "Ship needs a tag")
        merged = await call(
            client, "consolidate_memories", ids=[first, second], body="Tag, then make ship"
        )
        single = await client.call_tool("consolidate_memories", {"ids": [first], "body": "x"})
    assert merged.structured_content["consolidated"] == [first, second]
    assert f"Consolidated {first}, {second}" in text_of(merged)
    assert single.is_error and "ids" in text_of(single)


async def saved_id_of(client: Client, body: str) -> str:
    saved = await call(client, "save_memory", kind="procedure", body=body)
    return saved.structured_content["id"]


async def test_crystallize_returns_the_skill_md_in_text_and_structure(connect: Connect) -> None:
    async with connect() as client:
        memory_id = await saved_id(client)
        skill = await call(client, "crystallize_memory", id=memory_id, name="ship-it")
        bad = await client.call_tool("crystallize_memory", {"id": memory_id, "name": "x" * 65})
    assert skill.structured_content["filename"] == "ship-it/SKILL.md"
    assert "name: ship-it" in text_of(skill) and "Deploy with make ship" in text_of(skill)
    assert bad.is_error and "name" in text_of(bad)
