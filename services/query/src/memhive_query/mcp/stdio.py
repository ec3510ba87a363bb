"""`memhive mcp --url --token`: the MCP tools over stdio, for clients that launch a command."""

from __future__ import annotations

import anyio

from memhive_query.mcp.rest_api import RestMemoryApi
from memhive_query.mcp.server import build_mcp_server


def run_stdio(url: str, token: str) -> None:
    """Serve every memhive tool on stdin/stdout, calling the gateway at `url` with `token`.

    Blocks until the client closes stdin.
    """
    anyio.run(serve_stdio, url, token)


async def serve_stdio(url: str, token: str) -> None:
    """One client per process, one session: the bridge tells it when the resource list
    changed (see MemhiveMcpServer)."""
    async with RestMemoryApi(url, token) as api:
        server = build_mcp_server(lambda: api, announces_resource_changes=True)
        await server.run_stdio_async()
