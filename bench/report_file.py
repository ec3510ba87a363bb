"""docs/benchmarks.md is written by `make bench` and by hand. A run rewrites only what it
measures: the header, and each of its sections from the heading to the section's
"(measured in N s)" line. Everything else stays as it was: notes written under a measured
section (after that line), and sections of their own (issue write-ups, what was tried), so
the next run never erases them. A measured section the file does not have yet goes after
the last measured one it has."""

from __future__ import annotations

import re

HEADING = re.compile(r"^## (.+)$", re.M)
# "(measured in 23 s)", as `run_all.section` ends a section; older runs may say less.
MEASURED = re.compile(r"^\(measured in [^)\n]*\)\n?", re.M)


def sections_of(document: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first section, then each section's (title, text)."""
    starts = [m.start() for m in HEADING.finditer(document)]
    intro = document[: starts[0]] if starts else document
    bounds = zip(starts, [*starts[1:], len(document)], strict=True)
    return intro, [(HEADING.match(document, a)[1], document[a:b]) for a, b in bounds]


def updated(document: str, header: str, measured: list[tuple[str, str]]) -> str:
    """`document` with `header` and every (title, text) of `measured` written in; `text`
    starts with its heading and ends with its "(measured in N s)" line."""
    _, sections = sections_of(document)
    new = dict(measured)
    kept: list[tuple[str, str]] = []
    last_measured = -1
    for title, text in sections:
        if title in new:
            kept.append((title, _rewritten(text, new.pop(title))))
            last_measured = len(kept) - 1
        else:
            kept.append((title, text))
    added = [(t, _ended(text)) for t, text in measured if t in new]
    kept[last_measured + 1 : last_measured + 1] = added
    return _ended(header) + "\n" + "".join(_ended(text) + "\n" for _, text in kept).rstrip() + "\n"


def _rewritten(old: str, fresh: str) -> str:
    """The fresh figures, then what was written under the old ones."""
    end = MEASURED.search(old)
    notes = old[end.end() :] if end else ""
    return _ended(fresh) + "\n" + notes.lstrip("\n") if notes.strip() else _ended(fresh)


def _ended(text: str) -> str:
    return text.rstrip() + "\n"
