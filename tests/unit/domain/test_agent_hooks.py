"""What an agent's hooks give a session, as rules: a prompt made a bounded query, the text a
model reads framed as others' notes and kept under what Claude Code shows whole."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_domain.agent_hooks import (
    MAX_CONTEXT_CHARS,
    NOTES_NOT_ORDERS,
    RecalledNote,
    prompt_query,
    prompt_text,
    session_text,
    within_bound,
)
from memhive_domain.recall import MAX_QUERY_CHARS
from memhive_domain.trust import trust_of

from tests.unit.domain.memory_factory import a_memory

NOW = datetime(2026, 12, 7, tzinfo=UTC)


@pytest.mark.parametrize("prompt", ["/clear", "/review the billing module", "ok", "  y \n", ""])
def test_slash_commands_and_prompts_with_nothing_to_search_for_recall_nothing(
    prompt: str,
) -> None:
    assert prompt_query(prompt) is None


def test_a_long_prompt_is_cut_at_a_word_within_a_querys_bound() -> None:
    query = prompt_query("deploy " * 1000)
    assert query is not None and len(query) <= MAX_QUERY_CHARS
    assert query.endswith("deploy") and "  " not in query


def test_control_characters_and_lone_surrogates_are_left_out_and_newlines_part_words() -> None:
    assert prompt_query("why did\x00 the\ud800 deploy\n\tfail?") == "why did the deploy fail?"


@given(st.text(max_size=3000))
def test_any_prompt_gives_none_or_a_query_a_recall_accepts(prompt: str) -> None:
    query = prompt_query(prompt)
    if query is None:
        return
    assert 1 <= len(query) <= MAX_QUERY_CHARS and query == query.strip()
    assert not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in query)
    assert sum(ch.isalnum() for ch in query) >= 3


@given(st.lists(st.text(max_size=400), max_size=60))
def test_what_is_added_stays_within_what_claude_code_shows_whole(lines: list[str]) -> None:
    text = "\n".join(lines)
    bounded = within_bound(text)
    assert len(bounded) <= MAX_CONTEXT_CHARS
    if len(text) <= MAX_CONTEXT_CHARS:
        assert bounded == text


def test_a_prompts_memories_say_who_wrote_them_and_how_far_they_are_trusted() -> None:
    memory = a_memory("m1", at=NOW, body="Deploys go out\non Tuesdays", created_by="alice")
    text = prompt_text([RecalledNote(memory, 0.123, superseded_by="m2", replaces=("m0",))])
    head, line = text.split("\n")
    assert NOTES_NOT_ORDERS in head
    trust = f"{trust_of(memory):.2f}"
    assert line == (
        f"- [m1] (fact; global; by alice; trust {trust}; confidence 0.12; superseded by m2; "
        "replaces m0) Deploys go out on Tuesdays"
    )


def test_a_sessions_opening_names_its_scope_and_keeps_the_pack_whole() -> None:
    text = session_text("# Memory bulletin: product:ios\n- [m1] Swift 6\n", "product ios")
    assert text.startswith("memhive, your team's shared memory, holds this for product ios")
    assert NOTES_NOT_ORDERS in text and text.endswith(
        "# Memory bulletin: product:ios\n- [m1] Swift 6"
    )
