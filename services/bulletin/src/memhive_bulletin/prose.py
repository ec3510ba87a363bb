"""Optional LLM prose: the deterministic bulletin summarised, served only if it checks out."""

from __future__ import annotations

import logging
from dataclasses import replace

from memhive_application.spend_guard import SpendGuard
from memhive_domain.bulletin import Bulletin, BulletinBudget, ids_in_bulletin
from memhive_domain.memory import Memory
from memhive_domain.summary_check import build_summary_prompt, check_summary, cited_ids
from memhive_ports.chat_model import ChatModel
from memhive_ports.token_counter import TokenCounter

log = logging.getLogger(__name__)


class ProseBriefing:
    """Asks the model for a briefing of the deterministic text. The model sees only that text,
    so the ids it may cite are the ones the text shows; every pinned one must be cited.
    A rejected, failed or unaffordable summary leaves the deterministic bulletin in place."""

    def __init__(
        self,
        model: ChatModel,
        counter: TokenCounter,
        spend: SpendGuard,
        *,
        summary_words: int,
    ) -> None:
        self._model, self._counter, self._spend = model, counter, spend
        self._words = summary_words
        self.rejections: list[list[str]] = []  # why recent summaries were refused, newest last

    async def rewrite(
        self, bulletin: Bulletin, memories: list[Memory], budget: BulletinBudget
    ) -> Bulletin:
        estimate = self._counter.count(bulletin.text) + budget.total_tokens
        if not await self._spend.try_acquire(estimate):
            return bulletin
        summary = await self._summary(bulletin, budget)
        if summary is None:
            return bulletin
        reasons = self._problems(summary, bulletin, memories, budget)
        if reasons:
            log.warning("bulletin %s: LLM summary rejected: %s", bulletin.scope_key, reasons)
            self.rejections = [*self.rejections[-9:], reasons]
            return bulletin
        return replace(
            bulletin,
            text=summary,
            token_count=self._counter.count(summary),
            renderer=f"llm/{self._model.model_name}",
            shown_ids=tuple(cited_ids(summary)),
        )

    async def _summary(self, bulletin: Bulletin, budget: BulletinBudget) -> str | None:
        prompt = build_summary_prompt(bulletin.text, max_words=self._words)
        try:
            completion = await self._model.complete(prompt, max_tokens=budget.total_tokens)
        except Exception as exc:  # any provider failure: the deterministic text is served
            log.warning("bulletin %s: LLM call failed: %r", bulletin.scope_key, exc)
            await self._spend.record(getattr(exc, "tokens", 0))
            return None
        used = completion.prompt_tokens + completion.completion_tokens
        await self._spend.record(used)
        return completion.text.strip()

    def _problems(
        self, summary: str, bulletin: Bulletin, memories: list[Memory], budget: BulletinBudget
    ) -> list[str]:
        shown = set(ids_in_bulletin(bulletin.text))
        pinned = {m.id for m in memories if m.pinned and m.id in shown}
        return check_summary(
            summary,
            pinned_ids=pinned,
            known_ids=shown,
            max_tokens=budget.total_tokens,
            count_tokens=self._counter.count,
        )
