"""A stand-in for Anthropic's Messages API, so that a real Claude Code can run a session
here: it records each request's body and answers "ok" (streamed or not). What a test reads
is what Claude Code sent the model, hooks' context included.

Run: python -m tests.e2e.fake_messages_api PORT LOG_FILE
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from aiohttp import web

USAGE = {"input_tokens": 10, "output_tokens": 1}


def _stream_events(model: str) -> list[tuple[str, dict]]:
    message = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": USAGE}  # fmt: skip
    return [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),  # fmt: skip
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "ok"},
            },
        ),  # fmt: skip
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "usage": {"output_tokens": 1},
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            },
        ),  # fmt: skip
        ("message_stop", {"type": "message_stop"}),
    ]


def app(log: Path) -> web.Application:
    async def messages(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with log.open("a") as out:
            out.write(json.dumps(body) + "\n")
        model = body.get("model", "claude")
        if not body.get("stream"):
            return web.json_response({"id": "msg_fake", "type": "message", "role": "assistant",
                                      "model": model, "content": [{"type": "text", "text": "ok"}],
                                      "stop_reason": "end_turn", "usage": USAGE})  # fmt: skip
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for name, data in _stream_events(model):
            await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        await response.write_eof()
        return response

    async def anything_else(request: web.Request) -> web.Response:
        return web.json_response({"input_tokens": 10} if "count_tokens" in request.path else {})

    application = web.Application()
    application.router.add_post("/v1/messages", messages)
    application.router.add_route("*", "/{tail:.*}", anything_else)
    return application


if __name__ == "__main__":
    web.run_app(app(Path(sys.argv[2])), host="127.0.0.1", port=int(sys.argv[1]), print=None)
