"""Where a memory lives: one node of the workspace's scope tree, and who may see it.

The tree: the workspace root (`global`) -> products -> teams -> agents. A node is written as
a path: `global`, `product:ios`, `product:ios/team:mobile`, `product:ios/team:mobile/agent:bob`.
Teams may also hang directly under the root (`team:ops`), and an agent under any node that is
not an agent (`agent:bob`, `product:ios/agent:bob`): an agent node is that agent's private
(LOCAL) memory. `scope` (global or product) and `product_id` are the first level of the path,
kept for every client that spoke of scopes before the tree existed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from memhive_domain.errors import FieldProblem

PRODUCT_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
# Team and agent ids appear inside a path, so ':' and '/' are not allowed in them.
NODE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
ROOT_PATH = "global"
MAX_PATH_CHARS = 300


class Scope(StrEnum):
    GLOBAL = "global"
    PRODUCT = "product"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class ScopeRef:
    """One node of the scope tree: global, or a product, optionally narrowed to a team and/or
    an agent. Build paths with `parse_scope_path`; the fields are checked there."""

    scope: Scope
    product_id: str | None = None
    team_id: str | None = None
    agent_id: str | None = None

    @property
    def key(self) -> str:
        """The node's path (also its bulletin's scope key)."""
        parts = [f"product:{self.product_id}"] if self.scope is Scope.PRODUCT else []
        if self.team_id:
            parts.append(f"team:{self.team_id}")
        if self.agent_id:
            parts.append(f"agent:{self.agent_id}")
        return "/".join(parts) or ROOT_PATH

    @property
    def is_root(self) -> bool:
        return self.scope is Scope.GLOBAL and not self.is_nested

    @property
    def is_nested(self) -> bool:
        """Below the first level (a team or an agent node): unknown to pre-tree clients."""
        return bool(self.team_id or self.agent_id)

    @property
    def is_local(self) -> bool:
        """An agent's own node: private to that agent (Molecule's LOCAL)."""
        return bool(self.agent_id)

    @property
    def parent(self) -> ScopeRef | None:
        if self.agent_id:
            return ScopeRef(self.scope, self.product_id, self.team_id)
        if self.team_id:
            return ScopeRef(self.scope, self.product_id)
        if self.scope is Scope.PRODUCT:
            return ROOT
        return None

    @property
    def lineage(self) -> tuple[ScopeRef, ...]:
        """The root first, this node last."""
        chain: list[ScopeRef] = []
        node: ScopeRef | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        return tuple(reversed(chain))

    def is_below(self, other: ScopeRef) -> bool:
        """Strictly inside `other`'s subtree."""
        return other in self.lineage[:-1]


ROOT = ScopeRef(Scope.GLOBAL)


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


def parse_scope_path(
    path: str, problems: list[FieldProblem], field: str = "scope_path"
) -> ScopeRef | None:
    """A node from its path; appends a problem naming `field` and returns None if invalid."""
    text = (path or "").strip()
    if text == ROOT_PATH:
        return ROOT
    found = _segments(text) if 0 < len(text) <= MAX_PATH_CHARS else None
    if found is None:
        problems.append(FieldProblem(field, _PATH_HELP))
        return None
    product_id, team_id, agent_id = found
    scope = Scope.PRODUCT if product_id else Scope.GLOBAL
    return ScopeRef(scope, product_id, team_id, agent_id)


def _id_class(pattern: re.Pattern[str]) -> str:
    return pattern.pattern.removeprefix("^").removesuffix("$")


_PRODUCT, _NODE = _id_class(PRODUCT_ID_PATTERN), _id_class(NODE_ID_PATTERN)
# A node's path as a JSON-Schema pattern (the OpenAPI document states what
# parse_scope_path accepts, untrimmed): global, or product, team and agent segments in order.
SCOPE_PATH_PATTERN = (
    f"^(?:global|product:{_PRODUCT}(?:/team:{_NODE})?(?:/agent:{_NODE})?"
    f"|team:{_NODE}(?:/agent:{_NODE})?|agent:{_NODE})$"
)


def is_valid_scope_path(path: str) -> bool:
    return parse_scope_path(path, []) is not None


_ORDER = ("product", "team", "agent")
_PATH_HELP = (
    "must be 'global' or a path of product:<id>, team:<id>, agent:<id> segments in that order, "
    "each optional but at least one, separated by '/' (e.g. 'product:ios/team:mobile/agent:bob')"
)


def _segments(text: str) -> tuple[str | None, str | None, str | None] | None:
    # A product id may contain ':', so split each segment on its first ':' only.
    values: dict[str, str] = {}
    last = -1
    for segment in text.split("/"):
        label, _, value = segment.partition(":")
        if label not in _ORDER or _ORDER.index(label) <= last:
            return None
        pattern = PRODUCT_ID_PATTERN if label == "product" else NODE_ID_PATTERN
        if not pattern.match(value):
            return None
        values[label], last = value, _ORDER.index(label)
    return values.get("product"), values.get("team"), values.get("agent")
