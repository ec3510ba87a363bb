"""A body or query must hold a visible character (issue 24 item 9): decided by Unicode general
category and the known fillers, generated over those categories (hypothesis)."""

from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from memhive_domain.errors import FieldProblem
from memhive_domain.text import (
    INVISIBLE_FILLERS,
    NOTHING_VISIBLE,
    VISIBLE_TEXT_PATTERN,
    checked_text,
    has_visible_content,
    is_visible,
)

INVISIBLE_CATEGORIES = ["Cc", "Cf", "Cn", "Zs", "Zl", "Zp", "Mn", "Me", "Mc"]
VISIBLE_CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe"]
VISIBLE_CATEGORIES += ["Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Co"]

invisible_chars = st.one_of(
    st.characters(categories=INVISIBLE_CATEGORIES), st.sampled_from(sorted(INVISIBLE_FILLERS))
)
visible_chars = st.characters(categories=VISIBLE_CATEGORIES).filter(
    lambda c: c not in INVISIBLE_FILLERS
)


def check(text: str) -> list[FieldProblem]:
    problems: list[FieldProblem] = []
    checked_text("body", text, 4000, problems, required=True)
    return problems


@pytest.mark.parametrize(
    "text",
    [
        "\u3164",
        "\u115f\u1160",
        "\u034f",
        "\u2800",
        "\uffa0",
        "\U0001d159",
        " \u200b\u0301\n",
        "\u093e",
    ],
)
def test_the_issues_fillers_say_nothing(text: str) -> None:
    assert check(text) == [FieldProblem("body", NOTHING_VISIBLE)]
    assert not has_visible_content(text)


@given(st.text(invisible_chars, min_size=1, max_size=40))
def test_only_invisible_characters_are_refused(text: str) -> None:
    assert not has_visible_content(text)
    if text.strip():  # else "must not be empty"
        assert check(text) == [FieldProblem("body", NOTHING_VISIBLE)]


@given(st.text(invisible_chars, max_size=20), visible_chars, st.text(invisible_chars, max_size=20))
def test_one_visible_character_among_them_is_enough(before: str, ch: str, after: str) -> None:
    assert has_visible_content(before + ch + after)
    assert check(before + ch + after) == []


def test_every_default_ignorable_code_point_is_invisible() -> None:
    """Unicode's Default_Ignorable_Code_Point, as the `regex` library knows it: each is a
    format, a non-spacing mark or unassigned, or one of the fillers named here."""
    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    shown = [hex(c) for c in range(0x110000) if ignorable.match(chr(c)) and is_visible(chr(c))]
    assert shown == []


@given(st.characters(exclude_categories=["Cs"]))
def test_the_openapi_pattern_states_the_same_rule(ch: str) -> None:
    """Where the regex library's Unicode and Python's agree on the category (the pattern is
    read by validators with their own Unicode version)."""
    category = unicodedata.category(ch)
    if category != "Cn" and regex.match(rf"\p{{{category}}}", ch):
        assert bool(regex.search(VISIBLE_TEXT_PATTERN, ch)) == is_visible(ch)


def test_length_counts_the_text_as_sent() -> None:
    assert check("x" * 4000) == []
    [problem] = check(" " + "x" * 4000)
    assert problem.message == "is 4001 characters; the maximum is 4000"
