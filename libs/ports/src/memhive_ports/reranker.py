from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Reranker(Protocol):
    """Scores how well each text answers a query with a model of relevance (a second opinion
    on the lanes' candidates, optional: recall works without one).

    Scores: higher is more relevant, 0 or more, comparable only within one call. `model_name`
    names the model, for logs and metrics.
    """

    @property
    def model_name(self) -> str: ...

    async def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in order; no texts, no scores."""
        ...
