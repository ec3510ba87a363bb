"""Schema validation errors (pydantic's, for REST bodies and query strings and for MCP tool
arguments) as one plain sentence per field: what to send instead, without pydantic's error
types, echoed input or links to its documentation. The domain's own problems already read
this way; these are the ones caught before the domain sees the request."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memhive_domain.errors import FieldProblem

Error = Mapping[str, Any]  # one entry of pydantic's ValidationError.errors()


def field_problems(errors: Iterable[Error], *, skip: int = 0) -> list[FieldProblem]:
    """One problem per field, in order; `skip` leading parts of each location (FastAPI's
    "body" or "query")."""
    problems: dict[str, FieldProblem] = {}
    for error in errors:
        at = () if error.get("type") == "json_invalid" else error.get("loc", ())[skip:]
        field = field_name(at) or "body"  # a body that is not JSON: its offset is no field
        problems.setdefault(field, FieldProblem(field, _item(at) + sentence(error)))
    return list(problems.values())


def field_name(loc: Iterable[int | str]) -> str:
    """`tags`, `changes.tags`: the field a caller sent (an item of a list names its list,
    as the domain's problems do; the sentence says which item)."""
    return ".".join(part for part in loc if isinstance(part, str))


def _item(loc: Iterable[int | str]) -> str:
    indexes = [part for part in loc if isinstance(part, int)]
    return f"item {indexes[-1] + 1} " if indexes else ""


def sentence(error: Error) -> str:
    kind, ctx = str(error.get("type", "")), error.get("ctx") or {}
    for prefix, say in _SENTENCES:
        if kind == prefix or kind.startswith(prefix + "_"):
            return say(ctx)
    return "is not valid here"


Say = Callable[[Mapping[str, Any]], str]


def _fixed(text: str) -> Say:
    return lambda ctx: text


def _bound(words: str, key: str, unit: str = "") -> Say:
    """ "must have at most 3 items", "must be at least 1"."""

    def say(ctx: Mapping[str, Any]) -> str:
        n = ctx.get(key)
        return f"{words} {n}" + (f" {unit}{'' if n == 1 else 's'}" if unit else "")

    return say


def _one_of(ctx: Mapping[str, Any]) -> str:
    return f"must be {ctx.get('expected', 'one of the values the schema lists')}"


# By pydantic error type (or its family: "int_parsing" is "int"), the most specific first.
_SENTENCES: tuple[tuple[str, Say], ...] = (
    ("missing", _fixed("is required")),
    ("value_error", lambda ctx: str(ctx.get("error", "is not valid here"))),
    ("extra_forbidden", _fixed("is not a field of this request; leave it out")),
    ("literal_error", _one_of),
    ("enum", _one_of),
    ("string_too_short", _bound("must have at least", "min_length", "character")),
    ("string_too_long", _bound("must have at most", "max_length", "character")),
    ("string_pattern_mismatch", _bound("must match the pattern", "pattern")),
    ("string", _fixed("must be a string")),
    ("too_short", _bound("must have at least", "min_length", "item")),
    ("too_long", _bound("must have at most", "max_length", "item")),
    ("greater_than_equal", _bound("must be at least", "ge")),
    ("greater_than", _bound("must be greater than", "gt")),
    ("less_than_equal", _bound("must be at most", "le")),
    ("less_than", _bound("must be less than", "lt")),
    ("multiple_of", _bound("must be a multiple of", "multiple_of")),
    ("int_from_float", _fixed("must be a whole number")),
    ("int", _fixed("must be a whole number")),
    ("float", _fixed("must be a number")),
    ("finite_number", _fixed("must be a finite number")),
    ("bool", _fixed("must be true or false")),
    ("list", _fixed("must be a list")),
    ("dict", _fixed("must be an object")),
    ("model", _fixed("must be an object")),
    ("datetime", _fixed("must be a date and time in ISO 8601, e.g. 2026-05-04T09:30:00Z")),
    ("date", _fixed("must be a date in ISO 8601, e.g. 2026-05-04")),
    ("timezone", _fixed("must be a time with its offset, e.g. 2026-05-04T09:30:00Z")),
    ("json", _fixed("must be valid JSON")),
    ("uuid", _fixed("must be a UUID")),
)
