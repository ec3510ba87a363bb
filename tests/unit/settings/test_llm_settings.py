"""One LLM configuration: every consumer reads `settings.llm`, within bounds SpendGuard takes."""

from __future__ import annotations

import pytest
from memhive_adapters.runtime.llm import build_chat_model, build_spend_guard
from memhive_settings import LLMSettings, MemhiveSettings
from pydantic import ValidationError

from tests.fakes import FixedClock


def test_the_environment_reaches_the_one_llm_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMHIVE_LLM__MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("MEMHIVE_LLM__CALLS_PER_MINUTE", "7")
    llm = MemhiveSettings().llm
    assert isinstance(llm, LLMSettings)
    assert (llm.model, llm.calls_per_minute) == ("openai/gpt-4o-mini", 7)


def test_the_bulletin_has_no_spend_bounds_of_its_own() -> None:
    fields = MemhiveSettings.model_fields["bulletin"].annotation.model_fields
    assert not [name for name in fields if name.startswith("llm_") and name != "llm_prose"]


@pytest.mark.parametrize("field", ["calls_per_minute", "tokens_per_day"])
def test_settings_refuse_a_bound_spend_guard_would_refuse(field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        LLMSettings(**{field: 0})


async def test_the_smallest_bounds_settings_accept_build_a_spend_guard() -> None:
    guard = build_spend_guard(LLMSettings(calls_per_minute=1, tokens_per_day=1), FixedClock())
    assert await guard.try_acquire(1)
    assert not await guard.try_acquire(1)


def test_no_model_means_no_chat_model() -> None:
    assert build_chat_model(LLMSettings()) is None
