"""Reading an enum field from input: the member, or a FieldProblem naming the allowed values."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from memhive_domain.errors import FieldProblem

E = TypeVar("E", bound=StrEnum)


def parse_enum(enum: type[E], value: object, field: str, problems: list[FieldProblem]) -> E | None:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum)
        problems.append(FieldProblem(field, f"unknown value {value!r}; expected one of {allowed}"))
        return None
