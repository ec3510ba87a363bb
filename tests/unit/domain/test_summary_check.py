"""Whether an LLM briefing may replace the deterministic bulletin."""

from __future__ import annotations

import pytest
from memhive_domain.summary_check import build_summary_prompt, check_summary, cited_ids

KNOWN = {"m1", "m2", "m3"}
PINNED = {"m1"}


def words(text: str) -> int:
    return len(text.split())


def test_a_summary_citing_known_ids_and_every_pinned_one_is_accepted() -> None:
    summary = "We ship on Fridays [m1]. The API is REST [m2, m3]."
    assert check_summary(summary, pinned_ids=PINNED, known_ids=KNOWN) == []


def test_an_unknown_id_is_rejected() -> None:
    reasons = check_summary("Ship Fridays [m1]; use Go [m9].", pinned_ids=PINNED, known_ids=KNOWN)
    assert reasons == ["cites unknown memory ids: m9"]


def test_a_dropped_pinned_memory_is_rejected() -> None:
    reasons = check_summary("The API is REST [m2].", pinned_ids={"m1", "m3"}, known_ids=KNOWN)
    assert reasons == ["leaves out pinned memories: m1, m3"]


@pytest.mark.parametrize("summary", ["", "   \n "])
def test_an_empty_summary_is_rejected(summary: str) -> None:
    assert check_summary(summary, pinned_ids=(), known_ids=KNOWN) == ["the summary is empty"]


def test_prose_without_any_citation_is_rejected() -> None:
    reasons = check_summary("All is well.", pinned_ids=(), known_ids=KNOWN)
    assert reasons == ["cites no memory ids"]


def test_every_reason_is_reported_at_once() -> None:
    reasons = check_summary("Use Go [m9].", pinned_ids=PINNED, known_ids=KNOWN)
    assert len(reasons) == 2


def test_a_summary_over_the_token_budget_is_rejected() -> None:
    summary = "one two three four [m1]"
    assert (
        check_summary(summary, pinned_ids=PINNED, known_ids=KNOWN, max_tokens=5, count_tokens=words)
        == []
    )
    reasons = check_summary(
        summary, pinned_ids=PINNED, known_ids=KNOWN, max_tokens=4, count_tokens=words
    )
    assert reasons == ["is 5 tokens; the budget is 4"]


def test_a_token_limit_needs_a_counter() -> None:
    with pytest.raises(ValueError):
        check_summary("[m1]", pinned_ids=PINNED, known_ids=KNOWN, max_tokens=10)


def test_citations_are_read_in_order_of_first_appearance() -> None:
    assert cited_ids("[b] then [a, b;c] and [ a ]") == ["b", "a", "c"]


def test_prompt_asks_for_a_cited_briefing_of_the_bulletin() -> None:
    bulletin = "# Memory bulletin: global\n## Pinned (1 of 1 shown)\n- [0190-abc] (fact) x"
    messages = build_summary_prompt(bulletin, max_words=120)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == bulletin
    system = messages[0]["content"]
    assert "120 words" in system
    assert "[0190-abc]" in system
    assert "Pinned" in system
