"""What a tool module declares, and how it becomes an MCP tool bound to the caller's API.

A tool handler is `async def <tool_name>(api: MemoryApi, **arguments) -> ToolReply`,
its arguments annotated with pydantic `Field`s: the SDK derives the JSON schema from
them and rejects malformed calls (as tool errors) before the handler runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations

from memhive_query.mcp.api import ApiError, Json, MemoryApi
from memhive_query.mcp.rendering import render_error

ApiForRequest = Callable[[], MemoryApi]
Handler = Callable[..., Awaitable["ToolReply"]]


@dataclass(frozen=True, slots=True)
class ToolReply:
    """A tool's answer: text the model reads, and the same facts as structured content."""

    text: str
    data: Json

    def as_result(self) -> CallToolResult:
        return CallToolResult(content=[_text(self.text)], structured_content=self.data)


@dataclass(frozen=True, slots=True)
class MemoryTool:
    """One MCP tool: its handler (whose name is the tool's name) and how it behaves."""

    handler: Handler
    title: str
    description: str
    read_only: bool = False
    destructive: bool = False

    @property
    def name(self) -> str:
        return self.handler.__name__

    @property
    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=self.destructive,
            open_world_hint=False,
        )

    def bound_to(self, api_for_request: ApiForRequest) -> Callable[..., Awaitable[CallToolResult]]:
        """The function MCPServer registers: the handler's arguments, the caller's API."""

        async def call(**arguments: Any) -> CallToolResult:
            try:
                reply = await self.handler(api_for_request(), **arguments)
            except ApiError as error:
                return error_result(error)
            return reply.as_result()

        _adopt_signature(call, self.handler)
        return call


def error_result(error: ApiError) -> CallToolResult:
    """A refusal as an MCP tool error (isError): the agent reads it and can act on it."""
    return CallToolResult(
        content=[_text(render_error(error.status, error.message))],
        structured_content={"error": {"status": error.status, "message": error.message}},
        is_error=True,
    )


def _adopt_signature(call: Callable[..., Any], handler: Handler) -> None:
    # The SDK builds the input schema from the signature; `api` is ours, not the agent's.
    signature = inspect.signature(handler, eval_str=True)
    params = [p for name, p in signature.parameters.items() if name != "api"]
    call.__signature__ = signature.replace(parameters=params, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": CallToolResult}
    call.__name__ = call.__qualname__ = handler.__name__
    call.__doc__ = handler.__doc__


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)
