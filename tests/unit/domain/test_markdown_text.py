"""Markdown becomes the plain text a reader sees; long text is cut at a word with an ellipsis."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memhive_domain import markdown_text
from memhive_domain.markdown_text import (
    ELLIPSIS,
    MAX_MARKDOWN_CHARS,
    collapse_whitespace,
    plain_text,
    truncate_words,
)

from tests.unit.domain.markdown_lines import heading_lines

BUG_REPORT = """\
## Steps to reproduce

1. Open the **settings** page
2. Click [Save](https://example.com/settings?tab=a_b) and see ![the spinner](spin.png)
   which keeps turning for a _long_ time

> **Note:** only on *Firefox*.
> Chrome is fine.

| Browser | Version |
|---------|---------|
| Firefox | 128     |

```python
def save(form):
    return form.submit(retries=3)  # **not bold**
```

<details><summary>Logs</summary>
TimeoutError &amp; retry
</details>
"""


def test_a_bug_report_keeps_its_words_one_line_per_block() -> None:
    assert plain_text(BUG_REPORT).split("\n") == [
        "Steps to reproduce",
        "Open the settings page",
        "Click Save and see the spinner which keeps turning for a long time",
        "Note: only on Firefox. Chrome is fine.",
        "Browser; Version",
        "Firefox; 128",
        "def save(form):",
        "return form.submit(retries=3) # **not bold**",
        "Logs TimeoutError & retry",
    ]


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("# Title #", "Title"),
        ("Title\n=====\n\nbody", "Title\nbody"),
        ("a paragraph\nwrapped over\nthree lines", "a paragraph wrapped over three lines"),
        ("- [x] done\n- [ ] open", "done\nopen"),
        ("* one\n+ two\n3) three", "one\ntwo\nthree"),
        ("rename `old_name` to `new_name`", "rename old_name to new_name"),
        ("``a `tick` inside``", "a `tick` inside"),
        ("keep snake_case_words and 2 * 3 * 4", "keep snake_case_words and 2 * 3 * 4"),
        ("__bold__ and ~~gone~~ and ***both***", "bold and gone and both"),
        ("see <https://example.com/x>", "see https://example.com/x"),
        ("[docs][1]\n\n[1]: https://example.com", "docs"),
        ("literal \\*stars\\* and \\_under\\_", "literal *stars* and _under_"),
        ("line<br>break and <span class='x'>span</span>", "line break and span"),
        ("before <!-- hidden\ncomment --> after", "before after"),
        ("a\n\n---\n\n* * *\n\nb", "a\nb"),
        ("tabs\tand   spaces\r\nand CRLF", "tabs and spaces and CRLF"),
        ("~~~\nunclosed fence `kept`", "unclosed fence `kept`"),
        ("```\n&amp; in code\n```", "&amp; in code"),
        ("AT&amp;T &lt;3", "AT&T <3"),
    ],
)
def test_markdown_constructs(markdown: str, text: str) -> None:
    assert plain_text(markdown) == text


@pytest.mark.parametrize("blank", ["", "   \n\n\t", "---", "<br>", "<!-- only a comment -->"])
def test_nothing_readable_gives_empty_text(blank: str) -> None:
    assert plain_text(blank) == ""


def test_collapse_whitespace_leaves_markup_alone() -> None:
    assert collapse_whitespace("  **not** \n\n markdown  ") == "**not** markdown"


def test_short_text_is_not_truncated() -> None:
    assert truncate_words("fits exactly", 12) == "fits exactly"


def test_truncation_cuts_at_a_word_and_ends_with_an_ellipsis() -> None:
    text = "the quick brown fox jumps over the lazy dog"
    cut = truncate_words(text, 20)
    assert cut == "the quick brown fox" + ELLIPSIS
    assert len(cut) <= 20


def test_truncation_hard_cuts_one_giant_token() -> None:
    cut = truncate_words("x" * 50, 10)
    assert cut == "x" * 9 + ELLIPSIS


def test_truncation_drops_dangling_punctuation_before_the_ellipsis() -> None:
    assert truncate_words("alpha, beta, gamma delta", 14) == "alpha, beta" + ELLIPSIS


# Each reading below once was one pattern whose time grew with the square (or worse) of
# what it read; the pattern stays here as the reference the linear reading must equal.
@given(heading_lines(["", " ", "   ", "    ", "\t"]))
@example("## Title ##")
@example("# a#")
@example("#  ###")
def test_a_heading_reads_as_the_pattern_did(line: str) -> None:
    pattern = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)(.*?)(?:\s+#+)?\s*$")
    match = pattern.match(line)

    assert markdown_text._heading_text(line) == (match.group(1) if match else None)


@given(
    st.lists(st.sampled_from(["|", "-", "---", ":", " ", "  ", "\t", "x"]), max_size=12).map(
        "".join
    )
)
@example("| -- | -- | ")
@example("-|-|\t")
@example(" " * 30 + "x")
def test_a_table_separator_is_told_as_the_pattern_did(line: str) -> None:
    pattern = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")

    assert bool(markdown_text._TABLE_SEPARATOR.match(line)) == bool(pattern.match(line))


@given(st.text(alphabet="*_~ \ta.", max_size=40))
def test_emphasis_is_looked_for_up_to_its_last_close_as_everywhere(text: str) -> None:
    for pattern, closer, width in markdown_text._EMPHASIS:
        assert markdown_text._up_to_last(pattern, closer, width, text) == pattern.sub(r"\1", text)


@given(st.text(alphabet="<!->a \n", max_size=40))
def test_comments_are_dropped_as_the_pattern_did(text: str) -> None:
    assert markdown_text._without_comments(text) == re.sub(r"<!--.*?-->", " ", text, flags=re.S)


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("`a``b`", "a``b"),  # a span closes at a run of its own length
        ("x ```a`` b", "x ```a`` b"),  # and with none, the backticks are text
        ("[a [b](https://x)", "[a b"),  # a link's text stops at a bracket
        ("<https:<https://x>", "<https:https://x"),  # an autolink holds no "<"
        ("a \ue0000\ue000 `b`", "a 0 b"),  # the hold mark in the text itself is dropped
    ],
)
def test_markdown_read_in_one_pass(markdown: str, text: str) -> None:
    assert plain_text(markdown) == text


def test_a_document_is_read_for_its_first_characters() -> None:
    assert plain_text("x" * (MAX_MARKDOWN_CHARS + 10)) == "x" * MAX_MARKDOWN_CHARS
