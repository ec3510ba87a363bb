"""Every refusal comes back as an MCP tool error the agent can act on; the session lives on."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.types import CallToolResult
from memhive_query.mcp.api import ApiError
from memhive_query.mcp.registry import TOOLS
from memhive_query.mcp.server import build_mcp_server

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


async def test_invalid_input_is_a_tool_error_naming_the_field(connect: Connect) -> None:
    async with connect() as client:
        result = await client.call_tool(
            "save_memory", {"kind": "fact", "body": "x", "scope": "product"}
        )

    assert result.is_error is True
    assert (
        text_of(result)
        == "Invalid arguments (422): product_id: is required when scope is 'product'"
    )
    assert result.structured_content == {
        "error": {"status": 422, "message": "product_id: is required when scope is 'product'"}
    }


async def test_unknown_id_is_a_tool_error(connect: Connect) -> None:
    async with connect() as client:
        got = await client.call_tool("get_memory", {"id": "mem_missing"})
        forgot = await client.call_tool("forget_memory", {"id": "mem_missing"})

    for result in (got, forgot):
        assert result.is_error is True
        assert text_of(result).startswith("Not found (404): No memory with id 'mem_missing'")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("save_memory", {"kind": "fact", "body": "I may not write"}),
        ("forget_memory", {"id": "mem_0001"}),
        ("link_memories", {"src_id": "mem_0001", "dst_id": "mem_0002", "kind": "related_to"}),
    ],
)
async def test_read_only_token_cannot_write(
    connect: Connect, fake_api: FakeMemoryApi, tool: str, arguments: dict
) -> None:
    fake_api.member = False
    async with connect() as client:
        result = await client.call_tool(tool, arguments)

    assert result.is_error is True
    assert text_of(result).startswith("Not allowed (403): This token may not")


async def test_unreachable_memhive_is_a_tool_error_and_the_session_recovers(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        fake_api.unreachable = True
        down = await client.call_tool("recall_memory", {"query": "anything"})
        fake_api.unreachable = False
        up = await client.call_tool("recall_memory", {"query": "anything"})

    assert down.is_error is True
    assert text_of(down).startswith("memhive is unavailable (503): memhive is unreachable")
    assert up.is_error is False


async def test_refusal_from_the_api_resolver_is_a_tool_error() -> None:
    def no_caller():
        raise ApiError(401, "The bearer token was not recognised; check the token you configured.")

    async with Client(build_mcp_server(no_caller)) as client:
        result = await client.call_tool("recall_memory", {"query": "anything"})

    assert result.is_error is True
    assert "Not authenticated (401): The bearer token was not recognised" in text_of(result)


async def test_a_bug_behind_the_port_is_a_generic_tool_error_not_a_crash() -> None:
    class BrokenApi(FakeMemoryApi):
        async def recall(self, fields: dict) -> dict:
            raise KeyError("internal detail")

    async with Client(build_mcp_server(lambda: BrokenApi())) as client:
        broken = await client.call_tool("recall_memory", {"query": "anything"})
        still_alive = await client.list_tools()

    assert broken.is_error is True
    assert "internal detail" not in text_of(broken)
    assert len(still_alive.tools) == len(TOOLS)
