"""Rules every caller-supplied string obeys before it reaches an engine, the log or a lane.

Text must be encodable UTF-8 (JSON lets a lone surrogate such as "\\ud800" through; protobuf,
NATS and tantivy cannot store it), and a body or query must carry something visible: only
NUL, control, format (zero-width) or space characters say nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from memhive_domain.errors import FieldProblem

# Unicode general categories that show nothing on their own: controls (NUL, ESC, ...),
# formats (zero-width space, joiners, BOM, bidi marks), surrogates, unassigned, separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp"})
# An id, tag or key field never needs more; a longer one is refused before any lookup.
MAX_ID_CHARS = 128


def is_encodable(text: str) -> bool:
    """True when the text is valid Unicode: no lone surrogate code points."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unencodable(field: str, text: str | None) -> FieldProblem | None:
    if text is None or is_encodable(text):
        return None
    return FieldProblem(field, "contains characters that are not valid Unicode (lone surrogates)")


def has_visible_content(text: str) -> bool:
    return any(unicodedata.category(ch) not in _INVISIBLE_CATEGORIES for ch in text)


def checked_text(
    field: str, text: object, max_chars: int, problems: list[FieldProblem], *, required: bool
) -> str:
    """Stripped text within `max_chars`; an empty, invisible or unencodable text is a problem.

    Returns "" (and records the problem) when the value is unusable.
    """
    if text is not None and not isinstance(text, str):
        problems.append(FieldProblem(field, f"must be a string, got {type(text).__name__}"))
        return ""
    stripped = (text or "").strip()
    if (problem := unencodable(field, stripped)) is not None:
        problems.append(problem)
        return ""
    if not stripped:
        if required:
            problems.append(FieldProblem(field, "must not be empty"))
        return ""
    if not has_visible_content(stripped):
        problems.append(
            FieldProblem(field, "has no visible content (only control, zero-width or space)")
        )
        return ""
    if len(stripped) > max_chars:
        problems.append(
            FieldProblem(field, f"is {len(stripped)} characters; the maximum is {max_chars}")
        )
    return stripped


def id_list_problems(field: str, values: object, max_count: int) -> list[FieldProblem]:
    """A list of memory ids: bounded in count and length, each a valid string."""
    if not isinstance(values, list | tuple):
        return [FieldProblem(field, "must be a list of memory ids")]
    if len(values) > max_count:
        return [FieldProblem(field, f"at most {max_count} ids, got {len(values)}")]
    if bad := string_problems(field, values):
        return bad
    if any(len(v) > MAX_ID_CHARS for v in values):
        return [FieldProblem(field, f"an id is at most {MAX_ID_CHARS} characters")]
    return []


def string_problems(field: str, values: Iterable[object]) -> list[FieldProblem]:
    """For lists of strings (tags, kinds, ids): each must be a valid, encodable string."""
    for value in values:
        if not isinstance(value, str):
            return [FieldProblem(field, f"must hold strings, got {type(value).__name__}")]
        if (problem := unencodable(field, value)) is not None:
            return [problem]
    return []
