"""A product of a workspace as a record: its name and the visibility its memories inherit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, Visibility, scope_problems

MAX_NAME_CHARS = 200


@dataclass(frozen=True, slots=True)
class Product:
    workspace_id: str
    product_id: str
    name: str
    visibility: Visibility
    updated_by: str
    updated_at: datetime


def define_product(
    product_id: str,
    visibility: Visibility | str,
    name: str | None,
    *,
    principal: Principal,
    now: datetime,
) -> Product:
    """Validate a product definition; raises InvalidInput listing every problem."""
    problems: list[FieldProblem] = scope_problems(Scope.PRODUCT, product_id)
    parsed = parse_enum(Visibility, visibility, "visibility", problems)
    text = (name or "").strip()
    if len(name or "") > MAX_NAME_CHARS:  # as sent, like the schema's maxLength
        problems.append(FieldProblem("name", f"is longer than {MAX_NAME_CHARS} characters"))
    if problems:
        raise InvalidInput(problems)
    assert parsed is not None  # narrowed: no problems
    return Product(principal.workspace_id, product_id, text, parsed, principal.user_id, now)
