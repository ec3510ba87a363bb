"""What a request's own types accept: a moment is a date-time, never a number of seconds."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memhive_query import request_types
from pydantic import TypeAdapter, ValidationError

MOMENT = TypeAdapter(request_types.Moment)


@given(st.text(alphabet="0123456789.+-eE x", max_size=24))
@example("448")
@example(" -1.5e3 ")
@example("1." + "1" * 20 + "x")
def test_a_number_is_told_as_the_pattern_did(text: str) -> None:
    """The pattern that told numbers let a run of digits split every way between two of
    its parts (16,000 digits and a letter: 13 s); the one kept reads the same strings."""
    was = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")

    assert bool(request_types._NUMBER.fullmatch(text)) == bool(was.fullmatch(text))


@pytest.mark.parametrize("number", [448, 1.5, "448", " 1e3 "])
def test_a_number_is_not_a_moment(number: object) -> None:
    with pytest.raises(ValidationError, match="ISO 8601"):
        MOMENT.validate_python(number)
