"""A real OpenAI-compatible `/v1/chat/completions` server on 127.0.0.1 with scripted answers.

Each request takes the next script in order (the last one repeats): an answer, an HTTP
error status, or a stall longer than the client's timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

# litellm's response types trip a pydantic UserWarning on first use; the suite makes
# warnings errors, and this one is litellm's to fix, not ours.
LITELLM_WARNINGS = pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")


@dataclass(frozen=True)
class Reply:
    content: str | None
    prompt_tokens: int = 120
    completion_tokens: int = 30


@dataclass(frozen=True)
class Status:
    code: int
    message: str = "scripted failure"


@dataclass(frozen=True)
class Stall:
    """Answers only after `seconds` (or when the server stops), long after any client gave up."""

    seconds: float = 30.0


Script = Reply | Status | Stall


def links(*entries: dict[str, Any]) -> Reply:
    return Reply(json.dumps({"links": list(entries)}))


@dataclass
class ChatServer:
    scripts: list[Script]
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    _released: asyncio.Event = field(default_factory=asyncio.Event)

    def script(self, *scripts: Script) -> None:
        self.scripts = list(scripts)

    async def handle(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.requests.append(body)
        script = self.scripts[min(len(self.requests), len(self.scripts)) - 1]
        if isinstance(script, Stall):
            with suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), script.seconds)
            script = Reply('{"links": []}')
        if isinstance(script, Status):
            error = {"error": {"message": script.message, "type": "scripted", "code": script.code}}
            return JSONResponse(error, status_code=script.code)
        return JSONResponse(_completion(body["model"], script))


def _completion(model: str, reply: Reply) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


@asynccontextmanager
async def running_chat_server(*scripts: Script) -> AsyncIterator[ChatServer]:
    server = ChatServer(list(scripts) or [Reply('{"links": []}')])
    app = FastAPI()
    app.post("/v1/chat/completions")(server.handle)
    http = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    task = asyncio.create_task(http.serve())
    while not http.started:
        assert not task.done(), "the stub chat server did not start"
        await asyncio.sleep(0.01)
    server.url = f"http://127.0.0.1:{http.servers[0].sockets[0].getsockname()[1]}/v1"
    try:
        yield server
    finally:
        server._released.set()
        http.should_exit = True
        await task
