"""The classifier with an LLM: one call per new memory, covering all its neighbours.

Over the spend bound it answers with the fallback instead and counts the refusal; a
failed call (unavailable, malformed answer) raises, so the message is retried later.
What the fallback is sure of (near-duplicates) is linked even when the model answers
"none" for it: a near-duplicate saved without the save's 409 is always linked.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhive_application.spend_guard import SpendGuard
from memhive_domain.memory import Memory
from memhive_ports import EdgeProposal, JsonChat, LinkClassifier, LlmUnavailable, MalformedOutput

from memhive_link_classifier.link_prompt import (
    SYSTEM,
    estimated_tokens,
    link_question,
    proposals_from_answer,
)
from memhive_link_classifier.metrics import ClassifierMetrics


class LlmLinkClassifier:
    def __init__(
        self,
        chat: JsonChat,
        guard: SpendGuard,
        fallback: LinkClassifier,
        metrics: ClassifierMetrics,
        *,
        max_output_tokens: int,
    ) -> None:
        self._chat, self._guard, self._fallback = chat, guard, fallback
        self._metrics, self._max_output_tokens = metrics, max_output_tokens

    async def classify(
        self, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]:
        if not neighbours:
            return []
        question = link_question(new, neighbours)
        if not await self._guard.try_acquire(estimated_tokens(question, self._max_output_tokens)):
            self._metrics.budget_refusals.add(1)
            return await self._fallback.classify(new, neighbours)
        try:
            proposals = await self._ask(question, new, neighbours)
        except (LlmUnavailable, MalformedOutput) as failure:
            self._metrics.llm_failures.add(1, {"reason": _reason(failure)})
            raise
        return _with_unlinked(proposals, await self._fallback.classify(new, neighbours))

    async def _ask(
        self, question: str, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]:
        self._metrics.llm_calls.add(1)
        try:
            reply = await self._chat.complete_json(SYSTEM, question)
        except MalformedOutput as malformed:
            await self._spent(malformed.tokens)
            raise
        await self._spent(reply.tokens)
        return proposals_from_answer(reply.data, new, neighbours)

    async def _spent(self, tokens: int) -> None:
        await self._guard.record(tokens)
        self._metrics.llm_tokens.add(tokens)


def _with_unlinked(proposals: list[EdgeProposal], sure: list[EdgeProposal]) -> list[EdgeProposal]:
    """The model's proposals, plus the sure ones for pairs it left unlinked."""
    pairs = {frozenset((p.src_id, p.dst_id)) for p in proposals}
    return proposals + [p for p in sure if frozenset((p.src_id, p.dst_id)) not in pairs]


def _reason(failure: Exception) -> str:
    return "malformed" if isinstance(failure, MalformedOutput) else "unavailable"
