"""The MCP app over real streamable HTTP (uvicorn), driven by the official client SDK.

Each test builds a fresh gateway: the SDK's session manager runs once per app.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from memhive_query.mcp.registry import TOOLS

from tests.integration.mcp.gateway_app import MEMBER_TOKEN, READER_TOKEN, build_gateway
from tests.integration.mcp.http_server import serving


@pytest.fixture
def gateway_url() -> Iterator[str]:
    app, _ = build_gateway()
    with serving(app) as base_url:
        yield base_url


@asynccontextmanager
async def mcp_session(base_url: str, token: str):
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
    ):
        yield client


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


async def save(client: Client, **arguments: object) -> str:
    result = await client.call_tool("save_memory", arguments)
    assert not result.is_error, text_of(result)
    return result.structured_content["id"]


async def test_saved_in_one_session_recalled_in_a_fresh_one(gateway_url: str) -> None:
    async with mcp_session(gateway_url, MEMBER_TOKEN) as first:
        deploy_id = await save(first, kind="decision", body="Production deploys happen on Fridays")
        await save(first, kind="preference", body="Reviews want small pull requests")
        await save(first, kind="fact", body="The staging database is Postgres 16")

    async with mcp_session(gateway_url, MEMBER_TOKEN) as second:
        recalled = await second.call_tool("recall_memory", {"query": "production deploys"})

    assert recalled.is_error is False
    assert recalled.structured_content["results"][0]["id"] == deploy_id
    assert f"[{deploy_id}] decision" in text_of(recalled)


async def test_forgotten_memory_is_gone_for_the_next_session(gateway_url: str) -> None:
    async with mcp_session(gateway_url, MEMBER_TOKEN) as first:
        memory_id = await save(first, kind="fact", body="The wifi password is on the fridge")
        forgotten = await first.call_tool("forget_memory", {"id": memory_id})

    async with mcp_session(gateway_url, MEMBER_TOKEN) as second:
        recalled = await second.call_tool("recall_memory", {"query": "wifi password"})
        got = await second.call_tool("get_memory", {"id": memory_id})

    assert forgotten.is_error is False
    assert recalled.structured_content["results"] == []
    assert got.is_error is True and "Not found (404)" in text_of(got)


async def test_a_non_member_cannot_write_and_sees_only_public_memories(gateway_url: str) -> None:
    async with mcp_session(gateway_url, MEMBER_TOKEN) as member:
        public_id = await save(
            member, kind="fact", body="Our API is documented at /docs", visibility="public"
        )
        private_id = await save(member, kind="fact", body="Our API keys live in the vault")

    async with mcp_session(gateway_url, READER_TOKEN) as reader:
        recalled = await reader.call_tool("recall_memory", {"query": "our api"})
        saved = await reader.call_tool("save_memory", {"kind": "fact", "body": "Readers write?"})
        forgot = await reader.call_tool("forget_memory", {"id": public_id})

    assert [r["id"] for r in recalled.structured_content["results"]] == [public_id]
    assert private_id not in text_of(recalled)
    for refused in (saved, forgot):
        assert refused.is_error is True
        assert text_of(refused).startswith("Not allowed (403)")


async def test_malformed_arguments_over_http_are_tool_errors(gateway_url: str) -> None:
    async with mcp_session(gateway_url, MEMBER_TOKEN) as client:
        result = await client.call_tool("recall_memory", {"query": "x", "max_results": 99})
        listing = await client.list_tools()

    assert result.is_error is True and "max_results" in text_of(result)
    assert [t.name for t in listing.tools] == [t.name for t in TOOLS]


async def test_unknown_token_is_refused_before_mcp(gateway_url: str) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            f"{gateway_url}/mcp",
            headers={
                "Authorization": "Bearer nope",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )

    assert response.status_code == 401


async def test_gateway_routes_still_answer_beside_the_mounted_app(gateway_url: str) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(
            f"{gateway_url}/healthz", headers={"Authorization": f"Bearer {MEMBER_TOKEN}"}
        )

    assert response.json() == {"ok": True}
