"""The LLM every consumer uses (link classifier, bulletin prose), built from `settings.llm`
in one place, so the consumers cannot disagree on the model, its limits or its spend."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhive_application.spend_guard import SpendGuard
from memhive_ports import Clock, SpendCounters
from memhive_settings import LLMSettings
from nats.js import JetStreamContext

from memhive_adapters.nats.kv_spend_counters import KvSpendCounters

if TYPE_CHECKING:
    from memhive_adapters.llm.litellm_chat import LiteLlmChat


def build_chat_model(llm: LLMSettings) -> LiteLlmChat | None:
    """A litellm chat model (ChatModel and JsonChat), or None when no model is configured."""
    if not llm.model:
        return None
    # Imported only with a model: litellm is slow to import.
    from memhive_adapters.llm.litellm_chat import LiteLlmChat

    return LiteLlmChat(
        llm.model,
        api_base=llm.api_base,
        api_key=llm.api_key.get_secret_value() if llm.api_key else None,
        timeout_s=llm.timeout_s,
        max_output_tokens=llm.max_output_tokens,
    )


def build_spend_guard(
    llm: LLMSettings, clock: Clock, counters: SpendCounters | None = None, *, consumer: str = "llm"
) -> SpendGuard:
    """One consumer's spend bound: this process's alone unless `counters` are shared."""
    return SpendGuard(
        clock,
        calls_per_minute=llm.calls_per_minute,
        tokens_per_day=llm.tokens_per_day,
        counters=counters,
        consumer=consumer,
    )


async def open_shared_spend_guard(
    llm: LLMSettings, clock: Clock, js: JetStreamContext, *, consumer: str
) -> SpendGuard:
    """The bound every replica of `consumer` shares, counted in the KV bucket."""
    counters = await KvSpendCounters.open(js)
    return build_spend_guard(llm, clock, counters, consumer=consumer)
