"""`run_stdio` launched as a command, the way `memhive mcp --url --token` runs it.

The client SDK starts it as a subprocess and talks MCP over its stdin/stdout; the
bridge reaches a local REST stand-in over real HTTP.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import anyio
import pytest
from mcp import Client, StdioServerParameters
from memhive_query.mcp.registry import TOOLS

from tests.integration.mcp.http_server import serving
from tests.integration.mcp.rest_gateway_app import REST_TOKEN, build_rest_gateway
from tests.unit.mcp.fake_api import FakeMemoryApi


@pytest.fixture
def rest_url() -> Iterator[str]:
    with serving(build_rest_gateway(FakeMemoryApi())) as base_url:
        yield base_url


def bridge(url: str, token: str) -> StdioServerParameters:
    code = f"from memhive_query.mcp.stdio import run_stdio; run_stdio({url!r}, {token!r})"
    return StdioServerParameters(command=sys.executable, args=["-c", code])


async def test_tools_work_over_stdio_through_the_rest_api(rest_url: str) -> None:
    async with Client(bridge(rest_url, REST_TOKEN)) as client:
        tools = await client.list_tools()
        saved = await client.call_tool(
            "save_memory", {"kind": "fact", "body": "CI runs on two cores"}
        )
        recalled = await client.call_tool("recall_memory", {"query": "how many cores in CI"})

    assert [t.name for t in tools.tools] == [t.name for t in TOOLS]
    assert saved.is_error is False
    assert [r["id"] for r in recalled.structured_content["results"]] == [
        saved.structured_content["id"]
    ]


async def test_a_refused_token_over_stdio_is_a_tool_error(rest_url: str) -> None:
    async with Client(bridge(rest_url, "wrong-token")) as client:
        result = await client.call_tool("recall_memory", {"query": "anything"})

    assert result.is_error is True
    assert result.content[0].text.startswith("Not authenticated (401)")


async def test_the_bridge_serves_resources_and_says_when_their_list_changes(
    rest_url: str,
) -> None:
    """Over stdio the bridge keeps a session: a listening client hears that a crystallized
    procedure added a skill, then reads it."""
    async with Client(bridge(rest_url, REST_TOKEN)) as client:
        assert client.server_capabilities.resources.list_changed is True
        before = [r.uri for r in (await client.list_resources()).resources]
        saved = await client.call_tool(
            "save_memory", {"kind": "procedure", "body": "Release with make ship"}
        )
        memory_id = saved.structured_content["id"]
        async with client.listen(resources_list_changed=True) as subscription:
            await client.call_tool("crystallize_memory", {"id": memory_id, "name": "ship-it"})
            with anyio.fail_after(10):
                event = await anext(aiter(subscription))
        after = [r.uri for r in (await client.list_resources()).resources]
        skill = await client.read_resource(f"memhive://skills/{memory_id}")

    assert before == ["memhive://bulletins/global"]
    assert type(event).__name__ == "ResourcesListChanged"
    assert after == [*before, f"memhive://skills/{memory_id}"]
    assert skill.contents[0].text.startswith("---\nname: ship-it")
