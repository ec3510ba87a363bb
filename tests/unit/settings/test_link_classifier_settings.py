"""The link classifier's batch: small with an LLM (its calls run while the ack wait does),
large without one (a batch is linked as one), and the operator's own when set."""

from __future__ import annotations

import pytest
from memhive_settings import MemhiveSettings


def test_without_an_llm_a_batch_holds_64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMHIVE_LLM__MODEL", raising=False)
    settings = MemhiveSettings()
    assert settings.link_classifier.batch_for(settings.llm.model) == 64


def test_with_an_llm_a_batch_holds_8(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMHIVE_LLM__MODEL", "openai/gpt-4o-mini")
    settings = MemhiveSettings()
    assert settings.link_classifier.batch_for(settings.llm.model) == 8


@pytest.mark.parametrize("model", [None, "openai/gpt-4o-mini"])
def test_an_operators_batch_size_is_kept_either_way(
    monkeypatch: pytest.MonkeyPatch, model: str | None
) -> None:
    monkeypatch.setenv("MEMHIVE_LINK_CLASSIFIER__BATCH_SIZE", "16")
    settings = MemhiveSettings()
    assert settings.link_classifier.batch_for(model) == 16
