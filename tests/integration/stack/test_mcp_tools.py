"""Agents through MCP against the real gateway: the official client SDK over streamable HTTP."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.integration.stack.conftest import Stack, Workspace


@asynccontextmanager
async def session(url: str, token: str):
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


async def _tokens(stack: Stack, workspace: Workspace) -> tuple[str, str]:
    return await stack.token(workspace.id), await stack.token(workspace.id, member=False)


async def test_saved_in_one_session_recalled_in_a_fresh_one(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, _ = await _tokens(stack, workspace)
    async with session(gateway_url, member) as first:
        ids = {}
        for kind, body in [
            ("decision", "Production deploys happen on Fridays after the 2pm freeze"),
            ("preference", "Reviewers want pull requests under 400 lines"),
            ("fact", "The staging database runs PostgreSQL 16"),
            ("todo", "Migrate the billing cron jobs to Temporal"),
        ]:
            result = await first.call_tool("save_memory", {"kind": kind, "body": body})
            assert not result.is_error, text(result)
            ids[kind] = result.structured_content["id"]

    async with session(gateway_url, member) as second:
        paraphrase = await second.call_tool(
            "recall_memory", {"query": "which day of the week can we release to production?"}
        )
        keyword = await second.call_tool(
            "recall_memory", {"query": "PostgreSQL staging", "max_results": 3}
        )
    assert paraphrase.structured_content["results"][0]["id"] == ids["decision"]
    assert keyword.structured_content["results"][0]["id"] == ids["fact"]
    assert ids["decision"] in text(paraphrase)


async def test_forget_then_recall_no_longer_returns_it(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, _ = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        saved = await agent.call_tool(
            "save_memory", {"kind": "fact", "body": "The VPN certificate expires in May"}
        )
        memory_id = saved.structured_content["id"]
        assert not (await agent.call_tool("forget_memory", {"id": memory_id})).is_error
        recalled = await agent.call_tool("recall_memory", {"query": "VPN certificate expiry"})
        got = await agent.call_tool("get_memory", {"id": memory_id})
    assert memory_id not in [r["id"] for r in recalled.structured_content["results"]]
    assert got.is_error


async def test_a_non_member_cannot_write_and_sees_only_public(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, reader = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        public = (
            await agent.call_tool(
                "save_memory",
                {
                    "kind": "fact",
                    "body": "Our status page is status.example.com",
                    "visibility": "public",
                },
            )
        ).structured_content["id"]
        private = (
            await agent.call_tool(
                "save_memory",
                {
                    "kind": "fact",
                    "body": "Our status page admin password is in 1Password",
                    "visibility": "private",
                },
            )
        ).structured_content["id"]
    async with session(gateway_url, reader) as guest:
        recalled = await guest.call_tool("recall_memory", {"query": "status page"})
        save = await guest.call_tool("save_memory", {"kind": "fact", "body": "x"})
        forget = await guest.call_tool("forget_memory", {"id": public})
    assert [r["id"] for r in recalled.structured_content["results"]] == [public]
    assert private not in text(recalled)
    assert save.is_error and "viewer may not save" in text(save)
    assert forget.is_error and "viewer may not forget" in text(forget)


async def test_malformed_arguments_are_tool_errors(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, _ = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        for tool, arguments in [
            ("save_memory", {"kind": "rumour", "body": "x"}),
            ("save_memory", {"kind": "fact", "body": ""}),
            ("save_memory", {"kind": "fact", "body": "x", "scope": "product"}),
            ("recall_memory", {"query": "x", "max_results": 50}),
            ("recall_memory", {}),
            ("get_memory", {"id": "not-an-id"}),
            ("forget_memory", {"id": "0190b2a4-0000-7000-8000-000000000000"}),
        ]:
            result = await agent.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
        assert not (await agent.call_tool("recall_memory", {"query": "still alive"})).is_error


async def test_mcp_refuses_a_bad_token_before_any_session(gateway_url: str) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            f"{gateway_url}/mcp", json={}, headers={"Authorization": "Bearer nope"}
        )
    assert response.status_code == 401


async def test_hostile_input_is_a_tool_error_naming_the_field(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, reader = await _tokens(stack, workspace)
    forged = "bzoxMDAwMDAwMDAwMA=="  # the offset cursor o:10000000000 that once killed memhive
    async with session(gateway_url, reader) as guest:
        listed = await guest.call_tool("list_memories", {"cursor": forged})
        assert listed.is_error and "cursor" in text(listed)
    async with session(gateway_url, member) as agent:
        for tool, arguments, field in [
            ("save_memory", {"kind": "fact", "body": "\u200b\u200b"}, "body"),
            ("save_memory", {"kind": "fact", "body": "\x00"}, "body"),
            (
                "save_memory",
                {"kind": "fact", "body": "ok", "expires_at": "9999-12-31T23:59:59-12:00"},
                "expires_at",
            ),
            ("list_memories", {"cursor": "k1.AAAA"}, "cursor"),
        ]:
            result = await agent.call_tool(tool, arguments)
            assert result.is_error and field in text(result), (tool, text(result))
        assert not (await agent.call_tool("recall_memory", {"query": "still alive"})).is_error


async def test_lone_surrogates_over_mcp_are_tool_errors(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    """The SDK client cannot even encode a lone surrogate; a raw JSON-RPC call can: it gets a
    JSON-RPC error or a tool error, never a 5xx."""
    member, _ = await _tokens(stack, workspace)
    headers = {
        "Authorization": f"Bearer {member}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    calls = [
        ("save_memory", {"kind": "fact", "body": "a \ud800 b"}, "body"),
        ("recall_memory", {"query": "a \ud800 b"}, "query"),
    ]
    async with httpx.AsyncClient(base_url=gateway_url, headers=headers, timeout=60) as client:
        for number, (tool, arguments, field) in enumerate(calls, start=1):
            request = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
            response = await client.post("/mcp", content=json.dumps(request).encode())
            # The SDK's JSON-RPC parser refuses it (parse error, 400), or the tool does.
            if response.status_code == 400:
                assert response.json()["error"]["code"] == -32700, response.text
                continue
            assert response.status_code == 200, response.text
            result = response.json()["result"]
            assert result["isError"] and field in result["content"][0]["text"], result
        assert (await client.get("/healthz")).status_code == 200


async def test_update_flag_and_confirm_through_mcp_move_the_memory_and_its_trust(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, reader = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        saved = await agent.call_tool(
            "save_memory",
            {
                "kind": "procedure",
                "body": "Rotate the signing key with vault rotate",
                "force": True,
            },
        )
        memory_id = saved.structured_content["id"]
        updated = await agent.call_tool(
            "update_memory", {"id": memory_id, "body": "Rotate the signing key with kms rotate"}
        )
        flagged = await agent.call_tool(
            "flag_memory", {"id": memory_id, "kind": "unverified", "reason": "never tried"}
        )
        confirmed = await agent.call_tool("confirm_memory", {"id": memory_id})
        recalled = await agent.call_tool("recall_memory", {"query": "kms rotate signing key"})
        bad = await agent.call_tool("update_memory", {"id": memory_id, "importance": 3})
    assert not updated.is_error, text(updated)
    assert updated.structured_content["memory"]["body"].endswith("kms rotate")
    trust = flagged.structured_content["memory"]["trust"]
    assert confirmed.structured_content["memory"]["trust"] > trust
    top = recalled.structured_content["results"][0]
    assert (top["id"], top["confirmations"], len(top["flags"])) == (memory_id, 1, 1)
    assert "FLAGGED unverified" in text(recalled)
    assert bad.is_error and "importance" in text(bad)
    async with session(gateway_url, reader) as guest:
        refused = await guest.call_tool(
            "flag_memory", {"id": memory_id, "kind": "wrong", "reason": "x"}
        )
    assert refused.is_error


async def test_consolidate_and_crystallize_through_mcp(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member, _ = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        ids = []
        for body in ("Release: run make release", "Release: then push the tag"):
            saved = await agent.call_tool(
                "save_memory", {"kind": "procedure", "body": body, "force": True}
            )
            ids.append(saved.structured_content["id"])
        merged = await agent.call_tool(
            "consolidate_memories",
            {"ids": ids, "body": "To release: run make release. Then push the tag."},
        )
        assert not merged.is_error, text(merged)
        merged_id = merged.structured_content["id"]
        skill = await agent.call_tool("crystallize_memory", {"id": merged_id, "name": "release"})
        recalled = await agent.call_tool("recall_memory", {"query": "how to release push tag"})
    assert not skill.is_error, text(skill)
    assert "name: release" in skill.structured_content["skill_md"]
    assert "1. To release: run make release.\n2. Then push the tag." in text(skill)
    assert recalled.structured_content["results"][0]["id"] == merged_id
    assert skill.structured_content["memories"][0]["promoted_at"]


async def test_a_dot_segment_in_an_id_or_a_node_never_reaches_another_route(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    """An id or node segment of '.' or '..' is the agent's, not a path step: HTTP clients
    remove dot segments, so `get_memory('.')` read the list route and a state's scope
    '<node>/..' wrote to its parent. Found by tests/integration/stack/test_mcp_fuzzing.py."""
    member, _ = await _tokens(stack, workspace)
    async with session(gateway_url, member) as agent:
        for tool in ("get_memory", "forget_memory", "update_memory"):
            for memory_id in (".", "..", "x/..", "./x"):
                arguments = {"id": memory_id} | ({"body": "b"} if tool == "update_memory" else {})
                result = await agent.call_tool(tool, arguments)
                assert result.is_error, (tool, memory_id)
                assert result.structured_content["error"]["status"] == 404, text(result)
                assert "no memory with id" in text(result), text(result)

        upward = {"scope": "product:p1/team:t1/..", "key": "deploy-lock", "value": 1}
        written = await agent.call_tool("set_state", upward)
        parent = await agent.call_tool("get_state", {"scope": "product:p1", "key": "deploy-lock"})
        bulletin = await agent.call_tool("get_memory_bulletin", {"scope_path": "product:p1/.."})
    assert written.is_error and "scope" in text(written), text(written)
    assert parent.is_error and parent.structured_content["error"]["status"] == 404
    assert bulletin.is_error and "scope" in text(bulletin), text(bulletin)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "a-browser-page", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


async def test_a_rebound_name_or_a_foreign_origin_is_refused_before_the_token(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    """DNS rebinding: a page whose name was rebound to 127.0.0.1 calls /mcp from a browser.
    The gateway listens on loopback (as `make run`): only loopback names and origins."""
    member, _ = await _tokens(stack, workspace)
    port = gateway_url.rsplit(":", 1)[1]
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {member}"}
    async with httpx.AsyncClient(base_url=gateway_url, timeout=30) as http:

        async def initialize(headers: dict[str, str]) -> httpx.Response:
            return await http.post("/mcp", json=INITIALIZE, headers=headers)

        rebound = await initialize({**bearer, "Host": f"evil.example:{port}"})
        foreign = await initialize({**bearer, "Origin": f"http://evil.example:{port}"})
        foreign_without_token = await initialize({**MCP_HEADERS, "Origin": "http://evil.example"})
        local_page = await initialize({**bearer, "Origin": f"http://localhost:{port}"})
        agent = await initialize(bearer)  # agents' MCP clients send no Origin
        local_without_token = await initialize(
            {**MCP_HEADERS, "Origin": f"http://localhost:{port}"}
        )

    assert rebound.status_code == 421, rebound.text
    assert "MEMHIVE_QUERY__MCP_ALLOWED_HOSTS" in rebound.json()["detail"]
    assert foreign.status_code == 403, foreign.text
    assert "MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS" in foreign.json()["detail"]
    assert foreign_without_token.status_code == 403
    assert local_without_token.status_code == 401
    for served in (local_page, agent):
        assert served.status_code == 200, served.text
        server = served.json()["result"]["serverInfo"]
        assert server["name"] == "memhive" and server["version"]  # the package's, not ""
