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
    # Lenient as the SDK is ("30" is 30), but true is not 1: `ttl_s: true` was a 1 s expiry.
    ("set_state", {"scope": "global", "key": "deploy-lock", "value": 1, "ttl_s": True}, "ttl_s"),
    (
        "set_state",
        {"scope": "global", "key": "deploy-lock", "value": 1, "revision": True},
        "revision",
    ),
    ("save_memory", {"kind": "fact", "body": "x", "importance": True}, "importance"),
    ("recall_memory", {"query": "x", "max_results": True}, "max_results"),
    ("recall_memory", {"query": "x", "min_confidence": False}, "min_confidence"),
    ("get_context", {"token_budget": True}, "token_budget"),
    ("list_memories", {"limit": True}, "limit"),
    ("list_state", {"scope": "global", "limit": True}, "limit"),
    ("recent_activity", {"limit": True}, "limit"),
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
    assert text_of(result).startswith(f"Invalid arguments (422): {field}")
    assert_plain(text_of(result))
    expected = {"query": "still there?", "max_results": 6, "min_confidence": 0.01}
    assert fake_api.calls == [("recall", expected)]
    assert healthy.is_error is False


def assert_plain(text: str) -> None:
    """No pydantic internals: error types, echoed input, model names, links to its docs."""
    for internal in ("pydantic", "http", "[type=", "input_value", "Arguments", "validation error"):
        assert internal not in text, text


async def test_each_bad_argument_is_one_sentence_naming_its_field(connect: Connect) -> None:
    """Issue 24 item 11: what the agent reads, field by field, as the REST API's 422 says it."""
    arguments = {"kind": "rumour", "body": "x", "importance": 5, "tags": "t"}
    async with connect() as client:
        result = await client.call_tool("save_memory", arguments)
        listed = await client.call_tool("recall_memory", {"query": "q", "kinds": ["gossip"]})

    assert text_of(result) == (
        "Invalid arguments (422): kind: must be 'fact', 'preference', 'decision', 'identity', "
        "'event', 'observation', 'goal', 'todo' or 'procedure'; importance: must be at most "
        "1.0; tags: must be a list"
    )
    assert result.structured_content == {
        "error": {"status": 422, "message": text_of(result).split(": ", 1)[1]}
    }
    assert text_of(listed).startswith("Invalid arguments (422): kinds: item 1 must be 'fact'")


async def test_unknown_tool_is_a_tool_error(connect: Connect) -> None:
    async with connect() as client:
        result = await client.call_tool("remember_everything", {})

    assert result.is_error is True
    assert "remember_everything" in text_of(result)


async def test_a_number_sent_as_text_is_still_read_as_the_sdk_reads_it(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    """Only true and false are refused for numbers: a client that sends "3" for 3 is served."""
    async with connect() as client:
        result = await client.call_tool("recall_memory", {"query": "q", "max_results": "3"})

    assert result.is_error is False
    assert fake_api.calls == [("recall", {"query": "q", "max_results": 3, "min_confidence": 0.01})]
