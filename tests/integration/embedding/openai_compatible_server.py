"""A real OpenAI-compatible `/v1/embeddings` server on 127.0.0.1, for the litellm adapter.

Vectors are deliberately not unit length, and items come back in reverse order with their
input index, as the API allows: the adapter has to normalise and reorder.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import web


def raw_vector(text: str, dimensions: int) -> list[float]:
    """A fixed, text-dependent vector: length-scaled, so normalising visibly changes it."""
    seed = sum(text.encode()) + len(text)
    return [float((seed * (i + 3)) % 17 + 1) for i in range(dimensions)]


@dataclass
class EmbeddingServer:
    dimensions: int
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    url: str = ""

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.authorizations.append(request.headers.get("Authorization"))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [self._item(index, text, body) for index, text in enumerate(inputs)]
        usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
        return web.json_response(
            {"object": "list", "data": data[::-1], "model": body["model"], "usage": usage}
        )

    def _item(self, index: int, text: str, body: dict[str, Any]) -> dict[str, Any]:
        vector: Any = raw_vector(text, self.dimensions)
        if body.get("encoding_format") == "base64":
            vector = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()
        return {"object": "embedding", "index": index, "embedding": vector}


@asynccontextmanager
async def running_embedding_server(dimensions: int) -> AsyncIterator[EmbeddingServer]:
    server = EmbeddingServer(dimensions)
    app = web.Application()
    app.router.add_post("/v1/embeddings", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    server.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield server
    finally:
        await runner.cleanup()
