from __future__ import annotations

from typing import Protocol


class TokenCounter(Protocol):
    """Counts the tokens a language model would see for a text, with a real tokenizer.

    Deterministic: the same text always counts the same. Counts need not add up: a
    concatenation may count fewer tokens than its parts, so budgets count the exact text.
    """

    def count(self, text: str) -> int:
        """Tokens in `text`; 0 for the empty string. Special-token markers count as text."""
        ...
