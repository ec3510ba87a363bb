"""A product of a workspace as a record: its name and the visibility its memories inherit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import parse_enum
from memhive_domain.principals import Principal
from memhive_domain.scopes import PRODUCT_ID_PATTERN, Visibility

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
    problems: list[FieldProblem] = []
    if not PRODUCT_ID_PATTERN.match(product_id or ""):
        problems.append(
            FieldProblem(
                "product_id",
                "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', "
                "starting with a letter or digit",
            )
        )
    parsed = parse_enum(Visibility, visibility, "visibility", problems)
    text = (name or "").strip()
    if len(text) > MAX_NAME_CHARS:
        problems.append(FieldProblem("name", f"is longer than {MAX_NAME_CHARS} characters"))
    if problems:
        raise InvalidInput(problems)
    assert parsed is not None  # narrowed: no problems
    return Product(principal.workspace_id, product_id, text, parsed, principal.user_id, now)
