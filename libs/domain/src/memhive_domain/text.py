"""Rules every caller-supplied string obeys before it reaches an engine, the log or a lane.

Text must be encodable UTF-8 (JSON lets a lone surrogate such as "\\ud800" through; protobuf,
NATS and tantivy cannot store it), and a body or query must carry something visible.

Visible, decided by Unicode general category: a letter, number, punctuation, symbol or
private-use character (icon fonts live there), except the fillers that render as nothing.
Controls, formats (zero-width, joiners, bidi marks, tags), separators, unassigned code
points and marks (which show only on a base character) say nothing. Unicode's
Default_Ignorable_Code_Point property names the rest: every such code point is a format, a
mark or unassigned, except the four Hangul fillers, which are letters
(`tests/unit/domain/test_visible_text.py` checks this against the `regex` library's copy of
the property). Blank symbols with no property of their own join them: U+2800 BRAILLE
PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from memhive_domain.errors import FieldProblem

# Unicode general categories that show something on their own (see the module's docstring).
_VISIBLE_CATEGORIES = frozenset(
    {"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"}
    | {"Sm", "Sc", "Sk", "So", "Co"}
)
# The private-use areas (Co), spelled out: JSON Schema validators and generators know the
# big categories (\p{L}), not always the small ones.
_PRIVATE_USE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
# Characters of those categories that render as nothing: the Hangul fillers (letters, and
# Default_Ignorable), the blank braille pattern and the null notehead (symbols).
INVISIBLE_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\U0001d159")
# The same rule as a JSON-Schema (ECMA-262, Unicode) pattern, for the OpenAPI document: a
# string matches when it holds a visible character.
VISIBLE_TEXT_PATTERN = (
    "(?![" + "".join(sorted(INVISIBLE_FILLERS)) + "])[\\p{L}\\p{N}\\p{P}\\p{S}" + _PRIVATE_USE + "]"
)
# What str.strip() removes (str.isspace), as a regular expression's character class.
SPACE_CLASS = (
    "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000"
)
NOTHING_VISIBLE = (
    "has no visible character (only spaces, controls, zero-width or combining marks, fillers)"
)
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


def is_visible(ch: str) -> bool:
    return unicodedata.category(ch) in _VISIBLE_CATEGORIES and ch not in INVISIBLE_FILLERS


def has_visible_content(text: str) -> bool:
    return any(is_visible(ch) for ch in text)


def checked_text(
    field: str, text: object, max_chars: int, problems: list[FieldProblem], *, required: bool
) -> str:
    """Stripped text; an empty, invisible, unencodable or too long text is a problem. The
    length counts the text as sent (what a JSON schema's maxLength states), not stripped.

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
        problems.append(FieldProblem(field, NOTHING_VISIBLE))
        return ""
    if len(text or "") > max_chars:
        problems.append(
            FieldProblem(field, f"is {len(text or '')} characters; the maximum is {max_chars}")
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
