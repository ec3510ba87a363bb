"""A chat model that answers in JSON, and what can go wrong when asking it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class JsonReply:
    data: dict[str, Any]  # the model's answer, parsed
    tokens: int  # prompt + completion tokens the provider billed


class LlmUnavailable(Exception):
    """The model could not answer now (rate limited, timed out, unreachable): retry later."""


class MalformedOutput(Exception):
    """The model answered, but not in the shape asked for; `reason` says what was wrong."""

    def __init__(self, reason: str, tokens: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.tokens = tokens  # spent on the useless answer: budgets still count them


class JsonChat(Protocol):
    """One chat completion whose answer must be a JSON object.

    Raises LlmUnavailable for transient failures (429, timeouts, 5xx, connection errors),
    MalformedOutput when the answer is not a JSON object; other provider errors propagate.
    """

    async def complete_json(self, system: str, user: str) -> JsonReply: ...
