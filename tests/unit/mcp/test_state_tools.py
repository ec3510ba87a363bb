"""get_state, set_state, delete_state and list_state through an MCP session over the fake API:
the arguments each sends, the text the model reads, and refusals as tool errors."""

from __future__ import annotations

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi
from tests.unit.mcp.test_memory_flows import call, text_of

PLAN = {"scope": "product:ios", "key": "release:plan"}


async def test_set_then_get_then_update_only_if_unchanged(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        stored = await call(client, "set_state", **PLAN, value={"step": 1}, ttl_s=3600)
        got = await call(client, "get_state", **PLAN)
        revision = stored.structured_content["revision"]
        updated = await call(client, "set_state", **PLAN, value={"step": 2}, revision=revision)
        stale = await client.call_tool(
            "set_state", PLAN | {"value": {"step": 3}, "revision": revision}
        )

    assert fake_api.calls[0] == (
        "set_state",
        ("product:ios", "release:plan", {"value": {"step": 1}, "ttl_s": 3600}),
    )
    assert f"at revision {revision}" in text_of(stored) and "pass revision=" in text_of(stored)
    assert text_of(got).startswith("product:ios/release:plan at revision")
    assert '{"step":1}' in text_of(got) and "expires" in text_of(got)
    assert updated.structured_content["value"] == {"step": 2}
    assert stale.is_error and text_of(stale).startswith("Conflict (409)")


async def test_null_is_a_value_and_create_only_claims_a_new_key(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        await call(client, "set_state", **PLAN, value=None, create_only=True)
        again = await client.call_tool("set_state", PLAN | {"value": 1, "create_only": True})

    assert fake_api.calls[0][1][2] == {"value": None, "create_only": True}
    assert again.is_error and "409" in text_of(again)


async def test_list_and_delete(connect: Connect, fake_api: FakeMemoryApi) -> None:
    async with connect() as client:
        for key in ("a", "b", "c"):
            await call(client, "set_state", scope="team:ops", key=key, value=key * 2)
        listed = await call(client, "list_state", scope="team:ops", limit=2, include_values=True)
        deleted = await call(client, "delete_state", scope="team:ops", key="a")
        gone = await client.call_tool("get_state", {"scope": "team:ops", "key": "a"})

    text = text_of(listed)
    assert text.startswith("2 keys at team:ops:") and "- a (revision 1" in text
    assert '"aa"' in text and "cursor='v1.more'" in text
    assert fake_api.calls[3] == (
        "list_state",
        {"scope": "team:ops", "limit": 2, "include_values": True},
    )
    assert text_of(deleted) == "Deleted team:ops/a." and gone.is_error


async def test_a_bad_key_is_refused_before_memhive_is_called(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        result = await client.call_tool("set_state", {"scope": "global", "key": "a/b", "value": 1})
        missing = await client.call_tool("set_state", {"scope": "global", "key": "a"})

    assert result.is_error and "key" in text_of(result)
    assert missing.is_error and "value" in text_of(missing)
    assert fake_api.calls == []


async def test_a_viewer_is_refused(connect: Connect, fake_api: FakeMemoryApi) -> None:
    fake_api.member = False
    async with connect() as client:
        result = await client.call_tool("get_state", PLAN)
    assert result.is_error and text_of(result).startswith("Not allowed (403)")
