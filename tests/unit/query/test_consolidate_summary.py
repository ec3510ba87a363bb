"""The consolidation summary: written by the chat model within the spend bound; a failure or an
exhausted bound is SummaryUnavailable (nothing saved), never a crash."""

from __future__ import annotations

import pytest
from memhive_application.spend_guard import SpendGuard
from memhive_ports.chat_model import Completion
from memhive_query.use_cases.consolidate import Summarizer, SummaryUnavailable

from tests.fakes import FixedClock
from tests.unit.query.memories import NOW, memory


class ScriptedChat:
    model_name = "scripted"

    def __init__(self, reply: str | Exception) -> None:
        self.reply, self.calls = reply, 0

    async def complete(self, messages, *, max_tokens: int) -> Completion:
        self.calls += 1
        if isinstance(self.reply, Exception):
            raise self.reply
        return Completion(self.reply, 10, 5)


def guard(tokens_per_day: int = 100_000) -> SpendGuard:
    return SpendGuard(FixedClock(NOW), calls_per_minute=10, tokens_per_day=tokens_per_day)


async def test_the_summary_is_the_model_reply_and_its_tokens_are_counted() -> None:
    spend = guard()
    summary = await Summarizer(ScriptedChat("merged text"), spend).summarize([memory(1), memory(2)])
    assert summary == "merged text" and await spend.tokens_today() == 15


async def test_a_failing_model_or_an_exhausted_bound_is_summary_unavailable() -> None:
    with pytest.raises(SummaryUnavailable):
        await Summarizer(ScriptedChat(TimeoutError("slow")), guard()).summarize([memory(1)])
    chat = ScriptedChat("never asked")
    with pytest.raises(SummaryUnavailable, match="spend"):
        await Summarizer(chat, guard(tokens_per_day=1)).summarize([memory(1)])
    assert chat.calls == 0
