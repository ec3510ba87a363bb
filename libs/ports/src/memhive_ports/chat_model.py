from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    prompt_tokens: int  # as the provider reported them (0 when it did not)
    completion_tokens: int


class ChatModel(Protocol):
    """A chat-completion model. `model_name` names it for provenance (e.g. a bulletin's renderer).

    Raises on any failure (unreachable, refused, timed out): callers fall back, never retry
    blindly, since every call may cost money.
    """

    @property
    def model_name(self) -> str: ...

    async def complete(self, messages: Sequence[dict[str, str]], *, max_tokens: int) -> Completion:
        """messages: OpenAI shape ({"role", "content"}); the reply is at most max_tokens long."""
        ...
