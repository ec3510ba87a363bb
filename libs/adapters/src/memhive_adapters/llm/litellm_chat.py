"""Chat models over litellm: plain text (ChatModel) and JSON objects (JsonChat).

litellm's own retries are off: the caller's consumer retries with backoff, and a retry
here would spend budget the spend guard never saw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from memhive_ports.chat_model import Completion
from memhive_ports.llm import JsonReply, LlmUnavailable, MalformedOutput

from memhive_adapters.llm.litellm_module import import_litellm


def _transient_errors(litellm: ModuleType) -> tuple[type[Exception], ...]:
    """The errors after which the same request may succeed later."""
    e = litellm.exceptions
    return (
        e.RateLimitError,
        e.Timeout,
        e.APIConnectionError,
        e.ServiceUnavailableError,
        e.BadGatewayError,
        e.InternalServerError,
    )


class LiteLlmChat:
    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        max_output_tokens: int = 800,
    ) -> None:
        self._model, self._api_base, self._api_key = model, api_base, api_key
        self._timeout_s, self._max_output_tokens = timeout_s, max_output_tokens
        self._litellm = import_litellm()
        self._unavailable = _transient_errors(self._litellm)

    @property
    def model_name(self) -> str:
        return self._model

    async def complete(self, messages: Sequence[dict[str, str]], *, max_tokens: int) -> Completion:
        """ChatModel: the reply as text."""
        response = await self._call(self._request(messages, max_tokens))
        usage = getattr(response, "usage", None)
        return Completion(
            text=_content(response, _tokens(response)),
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )

    async def complete_json(self, system: str, user: str) -> JsonReply:
        """JsonChat: the reply parsed as one JSON object."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        request = self._request(messages, self._max_output_tokens)
        response = await self._call(request | {"response_format": {"type": "json_object"}})
        tokens = _tokens(response)
        return JsonReply(data=_json_object(_content(response, tokens), tokens), tokens=tokens)

    async def _call(self, request: dict[str, Any]) -> Any:
        try:
            return await self._litellm.acompletion(**request)
        except self._unavailable as exc:
            raise LlmUnavailable(f"{type(exc).__name__}: {_first_line(exc)}") from exc

    def _request(self, messages: Sequence[dict[str, str]], max_tokens: int) -> dict[str, Any]:
        return {
            "model": self._model,
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": 0,
            "timeout": self._timeout_s,
            "api_base": self._api_base,
            "api_key": self._api_key,
            "num_retries": 0,
            "max_retries": 0,
        }


def _tokens(response: Any) -> int:
    usage = getattr(response, "usage", None)
    return int(getattr(usage, "total_tokens", 0) or 0)


def _content(response: Any, tokens: int) -> str:
    choices = getattr(response, "choices", None) or []
    content = choices[0].message.content if choices else None
    if not content or not content.strip():
        raise MalformedOutput("the model returned no content", tokens)
    return content


def _json_object(content: str, tokens: int) -> dict[str, Any]:
    try:
        data = json.loads(_without_fence(content))
    except json.JSONDecodeError as exc:
        raise MalformedOutput(f"not JSON ({exc.msg} at char {exc.pos})", tokens) from exc
    if not isinstance(data, dict):
        raise MalformedOutput(f"expected a JSON object, got {type(data).__name__}", tokens)
    return data


def _without_fence(content: str) -> str:
    # Some models wrap JSON in a markdown fence even when asked for a JSON object.
    text = content.strip()
    if text.startswith("```") and text.endswith("```"):
        text = text[3:-3].removeprefix("json")
    return text


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:300]
