"""Where a memory lives (global or one product) and who may see it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from memhive_domain.errors import FieldProblem

PRODUCT_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


class Scope(StrEnum):
    GLOBAL = "global"
    PRODUCT = "product"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class ScopeRef:
    """A resolved scope: global, or one product (product_id set)."""

    scope: Scope
    product_id: str | None = None

    @property
    def key(self) -> str:
        return "global" if self.scope is Scope.GLOBAL else f"product:{self.product_id}"


def scope_problems(scope: Scope, product_id: str | None) -> list[FieldProblem]:
    if scope is Scope.PRODUCT and not product_id:
        return [FieldProblem("product_id", "is required when scope is 'product'")]
    if scope is Scope.GLOBAL and product_id:
        return [FieldProblem("product_id", "must be omitted when scope is 'global'")]
    if product_id and not PRODUCT_ID_PATTERN.match(product_id):
        return [
            FieldProblem(
                "product_id",
                "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', "
                "starting with a letter or digit",
            )
        ]
    return []


def resolve_scope(scope: Scope | None, product_id: str | None) -> Scope:
    """A product_id alone implies product scope; nothing at all means global."""
    if scope is not None:
        return scope
    return Scope.PRODUCT if product_id else Scope.GLOBAL
