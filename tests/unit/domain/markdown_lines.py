"""Lines that look like markdown headings, for property tests of the readings of them."""

from __future__ import annotations

from hypothesis import strategies as st


def heading_lines(leads: list[str]) -> st.SearchStrategy[str]:
    """A lead (spaces before the marks), 0-7 marks, then marks, spaces and a letter."""
    return st.builds(
        lambda lead, marks, rest: lead + "#" * marks + rest,
        st.sampled_from(leads),
        st.integers(min_value=0, max_value=7),
        st.text(alphabet="# \t\u00a0\u2003a", max_size=20),
    )
