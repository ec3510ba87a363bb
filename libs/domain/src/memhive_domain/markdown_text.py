"""Markdown to plain text, and safe truncation: what upstream bodies become before embedding.

Not a full CommonMark parser: it keeps the words a reader sees and drops the markup, which
is what embedding and BM25 want. Blocks (headings, list items, table rows, code lines) each
end up on their own line; soft-wrapped paragraph lines are joined; runs of spaces collapse.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator

ELLIPSIS = "…"
# What is read of a document: upstream text comes from anyone who can write in an issue
# tracker, up to the bus's 1 MiB, and becomes a memory of at most 4,000 characters.
MAX_MARKDOWN_CHARS = 20_000

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}(?=\s|$)")  # the text after it: _heading_text
_SETEXT_OR_RULE = re.compile(r"^\s{0,3}(?:=+|-{2,}|(?:[-*_]\s*){3,})\s*$")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")
# No two runs of spaces side by side: a line of spaces was otherwise split between them
# every way there is (seconds for 20,000 spaces).
_TABLE_SEPARATOR = re.compile(r"^\s*(?:\|\s*)?:?-+:?\s*(?:\|\s*:?-+:?\s*)+(?:\|\s*)?$")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+\S+")
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"

_BACKTICKS = re.compile(r"`+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
# Link text stops at a bracket, as CommonMark's does ("[a [b](u)" links "b"): a text of
# brackets is then read once, not once per bracket.
_IMAGE = re.compile(r"!\[([^\[\]]*)\]\([^)]*\)")
_INLINE_LINK = re.compile(r"\[([^\[\]]*)\]\([^)]*\)")
_REFERENCE_LINK = re.compile(r"\[([^\[\]]*)\]\[[^\[\]]*\]")
_CLOSING_PAREN = re.compile(r"\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^<>\s]+)>")  # no "<" in it, as CommonMark
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# Each emphasis with where its closing mark can stand (found as zero-width matches, so that
# overlapping marks are all seen): the emphasis is looked for only up to the last one.
_EMPHASIS = (
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), re.compile(r"(?<=\S)(?=\*\*)"), 2),
    (
        re.compile(r"(?<![\w])__(?=\S)(.+?)(?<=\S)__(?![\w])"),
        re.compile(r"(?<=\S)(?=__(?![\w]))"),
        2,
    ),
    (re.compile(r"\*(?=\S)(.+?)(?<=\S)\*"), re.compile(r"(?<=\S)(?=\*)"), 1),
    (re.compile(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])"), re.compile(r"(?<=\S)(?=_(?![\w]))"), 1),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), re.compile(r"(?<=\S)(?=~~)"), 2),
)
# Private-use characters stand in for protected text (code spans, escapes) while markup is
# stripped around it; any in the text itself are dropped first.
_HOLD = "\ue000"
_HELD = re.compile(_HOLD + r"(\d+)" + _HOLD)
_SPACES = re.compile(r"\s+")


def plain_text(markdown: str) -> str:
    """The readable text of a markdown document, one line per block, whitespace normalised."""
    # The hold mark is dropped from what is read: one in the text (a private-use character,
    # meaningless) would restore a held value that does not exist.
    text = (markdown or "").replace(_HOLD, "").replace("\r\n", "\n").replace("\r", "\n")
    source = _without_comments(text[:MAX_MARKDOWN_CHARS])
    lines = [_collapse(line) for line in _block_lines(source.split("\n"))]
    return "\n".join(line for line in lines if line)


def collapse_whitespace(text: str) -> str:
    """One space between words and no blank ends: for text that is not markdown (logs)."""
    return _collapse(text or "")


def truncate_words(text: str, limit: int) -> str:
    """At most `limit` characters; when cut, cut at a word boundary and end with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: limit - len(ELLIPSIS) + 1]
    boundary = max(head.rfind(" "), head.rfind("\n"))
    # One giant token (a URL, a hash): a hard cut beats returning almost nothing.
    cut = head[:boundary] if boundary > limit // 2 else head[:-1]
    return cut.rstrip(" \n,;:-") + ELLIPSIS


def _block_lines(lines: list[str]) -> Iterator[str]:
    for is_code, chunk in _fenced_chunks(lines):
        # Code keeps its text as is: no markup stripping inside a fence.
        yield from chunk if is_code else _prose_blocks(chunk)


def _fenced_chunks(lines: list[str]) -> Iterator[tuple[bool, list[str]]]:
    """Runs of prose and of fenced code, in order, without the fence lines themselves."""
    chunk: list[str] = []
    fence: str | None = None
    for line in lines:
        marker = _FENCE.match(line)
        closes = fence is not None and marker is not None and marker.group(1).startswith(fence)
        if (fence is None and marker) or closes:
            yield fence is not None, chunk
            chunk, fence = [], None if closes else marker.group(1)[0] * 3
        else:
            chunk.append(line)
    yield fence is not None, chunk


def _prose_blocks(lines: list[str]) -> Iterator[str]:
    lines = [_QUOTE.sub("", line) for line in lines]
    paragraph: list[str] = []
    for line, following in zip(lines, [*lines[1:], ""], strict=False):
        item = None if _SETEXT_OR_RULE.match(line) else _LIST_ITEM.match(line)
        if item:
            yield from _flush(paragraph)
            paragraph.append(line[item.end() :])  # a list item's wrapped lines join it
            continue
        block = _block_text(line, following)
        if block is None:
            paragraph.append(line)
        else:
            yield from _flush(paragraph)
            yield block
    yield from _flush(paragraph)


def _flush(paragraph: list[str]) -> Iterator[str]:
    if paragraph:
        yield _inline(" ".join(paragraph))
        paragraph.clear()


def _block_text(line: str, next_line: str) -> str | None:
    """The plain text of a line that is a block of its own; None for paragraph text."""
    if not line.strip() or _SETEXT_OR_RULE.match(line) or _LINK_DEFINITION.match(line):
        return ""
    if _TABLE_SEPARATOR.match(line):
        return ""
    if (heading := _heading_text(line)) is not None:
        return _inline(heading)
    if line.lstrip().startswith("|") or _TABLE_SEPARATOR.match(next_line):
        return _table_row(line)
    if _SETEXT_OR_RULE.match(next_line) and next_line.strip()[0] in "=-":
        return _inline(line)  # a setext heading's text
    return None


def _heading_text(line: str) -> str | None:
    """An ATX heading's text ("## Title ##" -> "Title"), or None when the line is not one:
    the text after the marks and their spaces, less trailing spaces and a closing run of
    marks that follows a space. Read from the ends of the line, not by a pattern whose
    shortest text is tried against each remaining tail (seconds over a line of spaces)."""
    mark = _HEADING_MARK.match(line)
    if mark is None:
        return None
    text = line[mark.end() :].strip()
    closing = len(text) - len(text.rstrip("#"))
    if 0 < closing < len(text) and text[-closing - 1].isspace():
        text = text[:-closing].rstrip()
    return text


def _table_row(line: str) -> str:
    held: list[str] = []
    cells = _hold_code_and_escapes(line, held).strip().strip("|").split("|")
    return "; ".join(c for c in (_inline_held(c, held).strip() for c in cells) if c)


def _inline(text: str) -> str:
    held: list[str] = []
    return _inline_held(_hold_code_and_escapes(text, held), held)


def _hold_code_and_escapes(text: str, held: list[str]) -> str:
    def hold(value: str) -> str:
        held.append(value)
        return f"{_HOLD}{len(held) - 1}{_HOLD}"

    text = _code_spans_held(text, hold)
    return _ESCAPE.sub(lambda m: hold(m.group(1)), text)


def _code_spans_held(text: str, hold: Callable[[str], str]) -> str:
    """Each code span (a run of backticks, up to the next run of the same length) held: the
    runs are paired in one pass, where a pattern trying each run against the rest of the text
    took seconds over a few thousand backticks."""
    runs = [m.span() for m in _BACKTICKS.finditer(text)]
    next_alike: list[int | None] = [None] * len(runs)
    last_of_length: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        next_alike[i] = last_of_length.get(length)
        last_of_length[length] = i
    out: list[str] = []
    done, i = 0, 0
    while i < len(runs):
        closing = next_alike[i]
        if closing is None:
            i += 1
            continue
        (start, opened), (closed, end) = runs[i], runs[closing]
        out += [text[done:start], hold(text[opened:closed].strip())]
        done, i = end, closing + 1
    return "".join([*out, text[done:]])


def _without_comments(text: str) -> str:
    """HTML comments replaced by a space; an unclosed one stays as written."""
    out: list[str] = []
    done = 0
    while (start := text.find(_COMMENT_OPEN, done)) >= 0:
        end = text.find(_COMMENT_CLOSE, start + len(_COMMENT_OPEN))
        if end < 0:
            break
        out += [text[done:start], " "]
        done = end + len(_COMMENT_CLOSE)
    return "".join([*out, text[done:]])


def _up_to_last(pattern: re.Pattern[str], closer: re.Pattern[str], width: int, text: str) -> str:
    """`pattern`'s matches replaced by their first group, looked for only up to the last
    place one can close (where `closer`'s last match starts, `width` long): an opening with
    no close after it would otherwise be followed to the end of the text, for each one."""
    last = None
    for match in closer.finditer(text):
        last = match
    if last is None:
        return text
    end = last.start() + width
    return pattern.sub(r"\1", text[:end]) + text[end:]


def _inline_held(text: str, held: list[str]) -> str:
    text = _up_to_last(_IMAGE, _CLOSING_PAREN, 1, text)
    text = _up_to_last(_INLINE_LINK, _CLOSING_PAREN, 1, text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", _HTML_BREAK.sub(" ", text))
    for pattern, closer, width in _EMPHASIS:
        text = _up_to_last(pattern, closer, width, text)
    # Unescape before restoring, so code keeps "&amp;" exactly as written.
    return _HELD.sub(lambda m: held[int(m.group(1))], html.unescape(text))


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()
