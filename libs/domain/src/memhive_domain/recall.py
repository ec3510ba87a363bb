"""What a recall or a listing asks for, and the filter every lane must apply inside its query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memhive_domain.answer_fit import asks_when
from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import node_of, normalise_tags
from memhive_domain.mentions import names_in
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.query_time import times_named
from memhive_domain.scope_tree import TreeView, tree_view
from memhive_domain.scopes import Scope, ScopeRef
from memhive_domain.text import checked_text, string_problems, unencodable
from memhive_domain.time_range import TimeRange, checked_range

MAX_QUERY_CHARS = 2000
DEFAULT_MAX_RESULTS = 6
MAX_RESULTS = 20
# Each lane is asked for this many candidates per wanted result (the brief: 3 x limit).
CANDIDATES_PER_RESULT = 3


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """The set of memories a principal may see, narrowed by the caller.

    Lanes apply all of it inside their own query (pushed down), so a scope with
    few matches still fills its top-k and nothing from elsewhere leaks in.
    """

    workspace_id: str
    scope: Scope | None = None  # None: every scope of the workspace
    product_id: str | None = None  # this product and everything below it
    node: ScopeRef | None = None  # exactly this node of the scope tree
    view: TreeView | None = None  # the nodes the principal reads; None: all (services)
    kinds: frozenset[MemoryKind] | None = None
    tags: frozenset[str] | None = None  # any of these
    public_only: bool = False
    live_at: datetime | None = None  # leave out what expired at or before this moment
    created: TimeRange | None = None  # saved within this range
    occurred: TimeRange | None = None  # happened within it (occurred_at, else created_at)
    include_expired: bool = False  # audits by members: expired memories too
    # None of these products' memories: the next product of a view, found one at a time.
    excluded_products: frozenset[str] | None = None


def view_of(principal: Principal, node: ScopeRef | None = None) -> MemoryFilter:
    """Everything of the workspace the principal may see (its part of the scope tree, and
    public memories only for a non-member), optionally one node, not narrowed any further:
    every filter built for a caller starts here (dataclasses.replace narrows it)."""
    return MemoryFilter(
        principal.workspace_id,
        node=node,
        view=tree_view(principal),
        public_only=not principal.is_member,
    )


@dataclass(frozen=True, slots=True)
class SelectionRequest:
    """The narrowing a caller may ask for, before validation."""

    scope: Scope | str | None = None
    product_id: str | None = None
    scope_path: str | None = None
    kinds: Sequence[MemoryKind | str] | None = None
    tags: Sequence[str] | None = None
    # How the caller named the lists (the listing's query parameters are singular).
    kinds_field: str = "kinds"
    tags_field: str = "tags"
    created_after: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    include_expired: bool = False  # audits: members may see what has expired


@dataclass(frozen=True, slots=True)
class RecallQuery:
    text: str
    filter: MemoryFilter
    limit: int
    named_times: tuple[TimeRange, ...] = ()  # times the query text names (query_time.py)
    names: frozenset[str] = frozenset()  # people the query names (mentions.names_in)
    wants_time: bool = False  # it asks when (answer_fit.asks_when)
    min_confidence: float = 0.0  # results below it are left out

    @property
    def candidates_per_lane(self) -> int:
        return CANDIDATES_PER_RESULT * self.limit


def plan_recall(
    text: str,
    selection: SelectionRequest,
    max_results: int | None,
    *,
    principal: Principal,
    now: datetime,
    min_confidence: float | None = None,
) -> RecallQuery:
    problems: list[FieldProblem] = []
    query = checked_text("query", text, MAX_QUERY_CHARS, problems, required=True)
    limit = DEFAULT_MAX_RESULTS if max_results is None else max_results
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        problems.append(FieldProblem("max_results", f"must be 1..{MAX_RESULTS}, got {limit!r}"))
    floor = _checked_confidence(min_confidence, problems)
    memory_filter = _build_filter(selection, principal, now, problems)
    if problems:
        raise InvalidInput(problems)
    return RecallQuery(
        query,
        memory_filter,
        limit,
        named_times=tuple(n.range for n in times_named(query, now)),
        names=names_in(query),
        wants_time=asks_when(query),
        min_confidence=floor,
    )


def _checked_confidence(value: float | None, problems: list[FieldProblem]) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        problems.append(FieldProblem("min_confidence", f"must be 0..1, got {value!r}"))
        return 0.0
    return float(value)


def plan_listing(
    selection: SelectionRequest, *, principal: Principal, now: datetime
) -> MemoryFilter:
    problems: list[FieldProblem] = []
    memory_filter = _build_filter(selection, principal, now, problems)
    if problems:
        raise InvalidInput(problems)
    return memory_filter


def _build_filter(
    selection: SelectionRequest, principal: Principal, now: datetime, problems: list[FieldProblem]
) -> MemoryFilter:
    """No node: everything the principal reads. A node: exactly that node (scope=global or
    scope=product with product_id name the node they always meant)."""
    product_id, scope_path = selection.product_id, selection.scope_path
    for field, value in (("product_id", product_id), ("scope_path", scope_path)):
        if (problem := unencodable(field, value)) is not None:
            problems.append(problem)
    if problems:
        product_id = scope_path = None
    node = node_of(selection.scope, product_id, scope_path, problems)
    view = view_of(principal)
    kinds = _parse_kinds(selection.kinds, selection.kinds_field, problems)
    tags = _parse_tags(selection.tags, selection.tags_field, problems)
    created = checked_range("created", selection.created_after, selection.created_before, problems)
    occurred = checked_range(
        "occurred", selection.occurred_after, selection.occurred_before, problems
    )
    if selection.include_expired and not problems:
        require(principal, Action.READ_EXPIRED)
    if node is not None and view.view is not None and not view.view.admits(node) and not problems:
        raise NotAllowed(f"scope {node.key!r} is outside this token's scope tree")
    return replace(
        view,
        node=node,
        kinds=kinds,
        tags=tags,
        live_at=None if selection.include_expired else now,
        include_expired=selection.include_expired,
        created=created,
        occurred=occurred,
    )


def _parse_kinds(
    kinds: Sequence[MemoryKind | str] | None, field: str, problems: list[FieldProblem]
) -> frozenset[MemoryKind] | None:
    if not kinds:
        return None
    if len(kinds) > len(MemoryKind):
        problems.append(FieldProblem(field, f"at most {len(MemoryKind)} kinds, got {len(kinds)}"))
        return None
    if bad := string_problems(field, kinds):
        problems += bad
        return None
    parsed = {parse_enum(MemoryKind, k, field, problems) for k in kinds}
    return frozenset(k for k in parsed if k is not None)


def _parse_tags(
    tags: Sequence[str] | None, field: str, problems: list[FieldProblem]
) -> frozenset[str] | None:
    """The same rules (and bound) as the tags of a saved memory: any of them matches."""
    if not tags:
        return None
    return frozenset(normalise_tags(tags, problems, field)) or None
