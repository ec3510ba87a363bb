"""Use case: several memories become one new memory that `updates` each of them, in one step
(the save and its `updates` edges go through SaveMemory's supersedes path, which publishes
both and waits for both). The body is the caller's, or, when asked and an LLM is configured,
a summary written by it, bounded by the same spend guard as every LLM consumer."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_application.spend_guard import SpendGuard
from memhive_domain.consolidation import (
    ConsolidationRequest,
    consolidated_draft,
    source_ids,
    summary_messages,
)
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import ensure_writable
from memhive_ports.chat_model import ChatModel

from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.save import SaveOutcome, Wait

SUMMARY_MAX_TOKENS = 600


class SummaryUnavailable(Exception):
    """The LLM could not write the summary (down, refused, over budget): 503, nothing saved."""


@dataclass(frozen=True, slots=True)
class Summarizer:
    chat: ChatModel
    spend: SpendGuard

    async def summarize(self, sources: list[Memory]) -> str:
        messages = summary_messages(sources)
        estimate = sum(len(m["content"]) for m in messages) // 4 + SUMMARY_MAX_TOKENS
        if not await self.spend.try_acquire(estimate):
            raise SummaryUnavailable("the LLM spend bound is reached; give the body yourself")
        try:
            reply = await self.chat.complete(messages, max_tokens=SUMMARY_MAX_TOKENS)
        except Exception as error:  # any provider failure: the caller may give the body
            raise SummaryUnavailable(
                f"the LLM could not summarise ({error}); give the body"
            ) from error
        await self.spend.record(reply.prompt_tokens + reply.completion_tokens)
        return reply.text


class ConsolidateMemories:
    def __init__(self, reader: MemoryReader, save, summarizer: Summarizer | None) -> None:
        self._reader, self._save, self._summarizer = reader, save, summarizer

    async def __call__(
        self, principal: Principal, request: ConsolidationRequest, wait: Wait
    ) -> SaveOutcome:
        require(principal, Action.UPDATE)
        sources = [await self._reader.get(principal, i) for i in source_ids(request)]
        for memory in sources:  # it supersedes each of them
            ensure_writable(principal, memory.scope_ref, "consolidate")
        body = request.body if request.body is not None else await self._summary(sources)
        draft = consolidated_draft(sources, request, body)
        ids = [m.id for m in sources]
        return await self._save(principal, draft, wait, force=True, supersedes=ids)

    async def _summary(self, sources: list[Memory]) -> str:
        if self._summarizer is None:
            problem = "required: no LLM is configured to summarise (MEMHIVE_LLM__MODEL)"
            raise InvalidInput([FieldProblem("body", problem)])
        return await self._summarizer.summarize(sources)
