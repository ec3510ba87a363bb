"""cl100k_base counts, offline: the unit conftest blocks sockets, so a download would fail."""

from __future__ import annotations

import pytest
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter, _ranks, bundled_ranks_file


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def test_counts_match_published_cl100k_examples(counter: TiktokenCounter) -> None:
    # OpenAI cookbook "How to count tokens with tiktoken": 6 tokens; "hello world" is 2.
    assert counter.count("tiktoken is great!") == 6
    assert counter.count("hello world") == 2
    assert counter.count("") == 0


def test_token_ids_are_cl100k(counter: TiktokenCounter) -> None:
    assert counter._encoding.encode_ordinary("hello world") == [15339, 1917]


def test_special_token_markers_count_as_plain_text(counter: TiktokenCounter) -> None:
    assert counter.count("<|endoftext|>") > 1


def test_counts_differ_from_a_character_or_word_estimate(counter: TiktokenCounter) -> None:
    text = "Supercalifragilisticexpialidocious antidisestablishmentarianism"
    assert counter.count(text) not in (len(text) // 4, len(text.split()))


def test_works_without_a_tiktoken_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", "/nonexistent")
    assert TiktokenCounter(bundled_ranks_file()).count("hello world") == 2


def test_a_tampered_ranks_file_is_refused() -> None:
    with pytest.raises(ValueError, match="hash"):
        _ranks(b"aGVsbG8= 0\n")
