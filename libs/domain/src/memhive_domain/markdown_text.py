"""Markdown to plain text, and safe truncation: what upstream bodies become before embedding.

Not a full CommonMark parser: it keeps the words a reader sees and drops the markup, which
is what embedding and BM25 want. Blocks (headings, list items, table rows, code lines) each
end up on their own line; soft-wrapped paragraph lines are joined; runs of spaces collapse.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

ELLIPSIS = "…"

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)(.*?)(?:\s+#+)?\s*$")
_SETEXT_OR_RULE = re.compile(r"^\s{0,3}(?:=+|-{2,}|(?:[-*_]\s*){3,})\s*$")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+\S+")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<![\w])__(?=\S)(.+?)(?<=\S)__(?![\w])"),
    re.compile(r"\*(?=\S)(.+?)(?<=\S)\*"),
    re.compile(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])"),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"),
)
# Private-use characters stand in for protected text (code spans, escapes) while markup is
# stripped around it; they never occur in real issue text.
_HOLD = "\ue000"
_HELD = re.compile(_HOLD + r"(\d+)" + _HOLD)
_SPACES = re.compile(r"\s+")


def plain_text(markdown: str) -> str:
    """The readable text of a markdown document, one line per block, whitespace normalised."""
    source = _HTML_COMMENT.sub(" ", (markdown or "").replace("\r\n", "\n").replace("\r", "\n"))
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
    if heading := _HEADING.match(line):
        return _inline(heading.group(1))
    if line.lstrip().startswith("|") or _TABLE_SEPARATOR.match(next_line):
        return _table_row(line)
    if _SETEXT_OR_RULE.match(next_line) and next_line.strip()[0] in "=-":
        return _inline(line)  # a setext heading's text
    return None


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

    text = _CODE_SPAN.sub(lambda m: hold(m.group(2).strip()), text)
    return _ESCAPE.sub(lambda m: hold(m.group(1)), text)


def _inline_held(text: str, held: list[str]) -> str:
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", _HTML_BREAK.sub(" ", text))
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    # Unescape before restoring, so code keeps "&amp;" exactly as written.
    return _HELD.sub(lambda m: held[int(m.group(1))], html.unescape(text))


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()
