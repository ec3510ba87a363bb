"""Memory files agents already read (`CLAUDE.md`, `AGENTS.md`, `.cursor/rules/*.mdc`,
`.github/copilot-instructions.md`, any Markdown): each bullet (with what is nested under it)
and each paragraph becomes one memory, its section's heading in front so it reads on its
own, its kind guessed from its words (`kinds.guess_kind`), and `source_ref`
`<file>#<heading anchor>:<n>` (the n-th item of that section): memories of one section share
a `source_ref` up to the trailing number, so recall's neighbour context treats them as saved
together. Code blocks stay with the item they follow; front matter, HTML comments and rules
(`---`) are not memories."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from memhive_domain.exchange.items import ImportFile, ImportItem
from memhive_domain.exchange.kinds import guess_kind
from memhive_domain.memory import MemoryDraft
from memhive_domain.scopes import ScopeRef
from memhive_domain.sources import Source
from memhive_domain.text import has_visible_content

_HEADING_MARK = re.compile(r"^#{1,6}(?=\s)")  # the heading's text: _heading
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
MAX_SOURCE_REF = 512


@dataclass
class _Block:
    line: int
    lines: list[str]
    numbered: bool = False
    bullet: bool = False


@dataclass
class _Reader:
    path: str
    heading: str = ""
    ordinal: int = 0
    items: list[ImportItem] = field(default_factory=list)
    block: _Block | None = None

    def flush(self, base: ScopeRef) -> None:
        block, self.block = self.block, None
        text = "\n".join(block.lines).strip() if block else ""
        if not block or not has_visible_content(text):
            return  # nothing a reader would see (blank, zero-width, fillers): no memory
        self.ordinal += 1
        body = f"{self.heading}: {text}" if self.heading else text
        kind = guess_kind(text, self.heading, numbered=block.numbered)
        anchor = f"#{_anchor(self.heading)}" if self.heading else ""
        draft = MemoryDraft(
            kind=kind,
            body=body,
            tags=(origin_tag(self.path),),
            scope_path=base.key,
            source=Source.NOTE,
            source_ref=f"{self.path}{anchor}:{self.ordinal}"[-MAX_SOURCE_REF:],
        )
        self.items.append(ImportItem(line=block.line, draft=draft))


def origin_tag(path: str) -> str:
    name = PurePosixPath(path).name.lower()
    if name == "claude.md":
        return "claude-md"
    if name == "agents.md":
        return "agents-md"
    if name.endswith(".mdc") or "/.cursor/rules/" in f"/{path}":
        return "cursor-rules"
    if name == "copilot-instructions.md":
        return "copilot-instructions"
    return "markdown"


def parse_memory_file(path: str, text: str, base: ScopeRef) -> ImportFile:
    """Markdown is forgiving: any text parses, so a memory file has no bad lines; a body the
    save refuses (over 4000 characters, say) is reported by the import naming its line."""
    reader = _Reader(path)
    lines = text.splitlines()
    number = _skip_front_matter(lines)
    while number < len(lines):
        number = _step(reader, lines, number, base)
    reader.flush(base)
    return ImportFile(tuple(reader.items))


def _step(reader: _Reader, lines: list[str], index: int, base: ScopeRef) -> int:
    """Reads the line at `index` (and a code block or comment it opens); the next index."""
    raw = lines[index]
    if _FENCE.match(raw):
        end = _closing(lines, index, _FENCE.match(raw).group(1))
        _continue(reader, index, textwrap.dedent("\n".join(lines[index : end + 1])).splitlines())
        return end + 1
    if raw.lstrip().startswith("<!--"):
        return _comment_end(lines, index) + 1
    if (heading := _heading(raw)) is not None:
        reader.flush(base)
        reader.heading, reader.ordinal = heading, 0
    elif _RULE.match(raw) or not has_visible_content(raw):  # a blank line, as a reader sees it
        reader.flush(base)
    elif bullet := _BULLET.match(raw):
        _bullet(reader, index, bullet, base)
    else:
        _continue(reader, index, [raw.strip()])
    return index + 1


def _heading(line: str) -> str | None:
    """A heading's text, less its marks, spaces and closing marks; None for another line.
    Read from the ends of the line: a pattern trying each shortest text against the rest
    took seconds for a line of a few thousand spaces (an import is anyone's file)."""
    mark = _HEADING_MARK.match(line)
    if mark is None:
        return None
    return line[mark.end() :].strip().rstrip("#").strip()


def _bullet(reader: _Reader, index: int, bullet: re.Match, base: ScopeRef) -> None:
    nested = bool(bullet.group(1)) and reader.block is not None and reader.block.bullet
    if nested:  # a sub-bullet belongs to the item above it
        reader.block.lines.append(f"{bullet.group(1)}- {bullet.group(3)}")
        return
    reader.flush(base)
    numbered = bullet.group(2)[0].isdigit()
    reader.block = _Block(index + 1, [bullet.group(3)], numbered=numbered, bullet=True)


def _continue(reader: _Reader, index: int, lines: list[str]) -> None:
    if reader.block is None:
        reader.block = _Block(index + 1, [])
    reader.block.lines.extend(lines)


def _closing(lines: list[str], start: int, fence: str) -> int:
    for index in range(start + 1, len(lines)):
        if lines[index].lstrip().startswith(fence):
            return index
    return len(lines) - 1


def _comment_end(lines: list[str], start: int) -> int:
    for index in range(start, len(lines)):
        if "-->" in lines[index]:
            return index
    return len(lines) - 1


def _skip_front_matter(lines: list[str]) -> int:
    """Cursor's .mdc rules open with `---` front matter (description, globs): not a memory."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, min(len(lines), 100)):
        if lines[index].strip() == "---":
            return index + 1
    return 0


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.lower(), flags=re.UNICODE)
    return text.strip().replace(" ", "-")
