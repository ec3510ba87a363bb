"""The context pack. Tokens are whitespace words here; production injects a real tokenizer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.context_pack import (
    MEMORIES_HEADER,
    ContextCandidate,
    PackClass,
    build_context_pack,
)
from memhive_domain.errors import InvalidInput
from memhive_domain.memory import Memory

from tests.unit.domain.memory_factory import a_memory

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BULLETIN = "# Memory bulletin: global\n## Facts (1 of 1 shown)\n- [b1] the sky is blue"


def words(text: str) -> int:
    return len(text.split())


def memory(memory_id: str, body: str = "", **changes) -> Memory:
    return a_memory(memory_id, at=T0, body=body or f"about {memory_id}", **changes)


def candidate(memory_id: str, relevance: float | None = None, **changes) -> ContextCandidate:
    return ContextCandidate(memory(memory_id, **changes), relevance)


def pack(candidates, *, budget=1000, bulletin=BULLETIN, count=words):
    return build_context_pack(bulletin, candidates, token_budget=budget, count_tokens=count)


def test_selection_follows_the_priority_classes() -> None:
    candidates = [
        candidate("rest-low", importance=0.2),
        candidate("rest-new", importance=0.6, updated_at=T0 + timedelta(days=1)),
        candidate("rest-old", importance=0.6),
        candidate("rel-weak", relevance=0.1),
        candidate("rel-strong", relevance=0.9),
        candidate("important", importance=0.85),
        candidate("pinned", importance=0.1, pinned=True),
    ]
    selected = pack(candidates).selected
    assert [(s.memory_id, s.pack_class) for s in selected] == [
        ("pinned", PackClass.PINNED),
        ("important", PackClass.IMPORTANT),
        ("rel-strong", PackClass.RELEVANT),
        ("rel-weak", PackClass.RELEVANT),
        ("rest-new", PackClass.OTHER),
        ("rest-old", PackClass.OTHER),
        ("rest-low", PackClass.OTHER),
    ]


def test_text_is_the_bulletin_then_the_selected_memories() -> None:
    result = pack([candidate("a", relevance=0.5, body="tea at noon")])
    assert result.text == f"{BULLETIN}\n{MEMORIES_HEADER}\n- [a] (fact) tea at noon"
    assert result.tokens_used == words(result.text)
    assert not result.bulletin_truncated


@pytest.mark.parametrize("budget", range(1, 80))
def test_tokens_used_never_exceed_the_budget(budget: int) -> None:
    candidates = [candidate(f"c{i}", relevance=i / 10, body="word " * i) for i in range(1, 9)]
    result = pack(candidates, budget=budget)
    assert result.tokens_used == words(result.text) <= budget


def test_an_item_that_does_not_fit_is_skipped_for_smaller_ones_after_it() -> None:
    candidates = [
        candidate("big", relevance=0.9, body="w " * 50),
        candidate("small", relevance=0.1, body="tiny"),
    ]
    # the bulletin is 16 words; the header 5, the small line 4
    result = pack(candidates, budget=16 + 5 + 4)
    assert [s.memory_id for s in result.selected] == ["small"]
    assert result.tokens_used == 25


def test_memories_the_bulletin_shows_are_not_repeated() -> None:
    candidates = [candidate("b1", relevance=0.9), candidate("x"), candidate("x", relevance=0.4)]
    result = pack(candidates)
    assert [(s.memory_id, s.pack_class) for s in result.selected] == [("x", PackClass.RELEVANT)]
    assert result.text.count("[x]") == 1 and result.text.count("[b1]") == 1


def test_a_bulletin_over_the_budget_is_cut_at_a_line_boundary() -> None:
    # lines of 4, 6 and 6 words: 12 tokens hold the first two
    result = pack([candidate("a", relevance=0.9)], budget=12)
    assert result.text == "# Memory bulletin: global\n## Facts (1 of 1 shown)"
    assert result.bulletin_truncated
    assert result.selected == ()
    assert result.tokens_used == 10


def test_without_a_bulletin_only_memories_are_packed() -> None:
    result = pack([candidate("a", body="x")], bulletin="")
    assert result.text == f"{MEMORIES_HEADER}\n- [a] (fact) x"


def test_exact_count_wins_over_piece_estimates() -> None:
    # a tokenizer that is not additive: every pair of line breaks costs one more token
    def merging(text: str) -> int:
        return len(text.split()) + text.count("\n") // 2

    candidates = [candidate(f"c{i}", body="a b") for i in range(10)]
    for budget in range(1, 70):
        result = pack(candidates, budget=budget, count=merging)
        assert result.tokens_used == merging(result.text) <= budget


@pytest.mark.parametrize("budget", [0, -5, 32_001, True, 10.5, "100"])
def test_token_budget_is_validated(budget: object) -> None:
    with pytest.raises(InvalidInput) as raised:
        pack([], budget=budget)
    assert raised.value.problems[0].field == "token_budget"
