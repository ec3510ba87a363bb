"""Arguments that break the schema are tool errors naming the field; the API is never called."""

from __future__ import annotations

import pytest
from mcp.types import CallToolResult

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi

MALFORMED = [
    ("save_memory", {"body": "no kind given"}, "kind"),
    ("save_memory", {"kind": "rumour", "body": "not a kind"}, "kind"),
    ("save_memory", {"kind": "fact", "body": ""}, "body"),
    ("save_memory", {"kind": "fact", "body": "x", "importance": 5}, "importance"),
    ("save_memory", {"kind": "fact", "body": "x", "tags": "not-a-list"}, "tags"),
    ("save_memory", {"kind": "fact", "body": "x", "pinned": "maybe"}, "pinned"),
    ("save_memory", {"kind": "fact", "body": "x", "expires_at": "next tuesday"}, "expires_at"),
    ("save_memory", {"kind": "fact", "body": "x", "visibility": "secret"}, "visibility"),
    ("recall_memory", {"query": "x", "max_results": 0}, "max_results"),
    ("recall_memory", {"query": "x", "max_results": 21}, "max_results"),
    ("recall_memory", {"query": "x", "max_results": "lots"}, "max_results"),
    ("recall_memory", {"query": 42}, "query"),
    ("recall_memory", {"query": "x", "kinds": ["fact", "gossip"]}, "kinds"),
    ("forget_memory", {}, "id"),
    ("get_memory", {"id": ["mem_1"]}, "id"),
    ("list_memories", {"limit": 1000}, "limit"),
    ("link_memories", {"src_id": "a", "dst_id": "b", "kind": "causes"}, "kind"),
    ("get_memory_bulletin", {"scope": "universe"}, "scope"),
    ("get_context", {"token_budget": -1}, "token_budget"),
]


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.mark.parametrize(("tool", "arguments", "field"), MALFORMED)
async def test_malformed_call_is_a_tool_error_naming_the_field(
    connect: Connect, fake_api: FakeMemoryApi, tool: str, arguments: dict, field: str
) -> None:
    async with connect() as client:
        result = await client.call_tool(tool, arguments)
        healthy = await client.call_tool("recall_memory", {"query": "still there?"})

    assert result.is_error is True
    assert field in text_of(result)
    expected = {"query": "still there?", "max_results": 6, "min_confidence": 0.01}
    assert fake_api.calls == [("recall", expected)]
    assert healthy.is_error is False


async def test_unknown_tool_is_a_tool_error(connect: Connect) -> None:
    async with connect() as client:
        result = await client.call_tool("remember_everything", {})

    assert result.is_error is True
    assert "remember_everything" in text_of(result)
