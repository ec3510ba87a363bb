"""What a recall or a listing asks for, and the filter every lane must apply inside its query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import TAG_PATTERN
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, scope_problems

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
    product_id: str | None = None
    kinds: frozenset[MemoryKind] | None = None
    tags: frozenset[str] | None = None  # any of these
    public_only: bool = False
    live_at: datetime | None = None  # leave out what expired at or before this moment


def view_of(principal: Principal) -> MemoryFilter:
    """Everything of the workspace the principal may see, not narrowed any further: every
    filter built for a caller starts here (dataclasses.replace narrows it)."""
    return MemoryFilter(principal.workspace_id, public_only=not principal.is_member)


@dataclass(frozen=True, slots=True)
class SelectionRequest:
    """The narrowing a caller may ask for, before validation."""

    scope: Scope | str | None = None
    product_id: str | None = None
    kinds: Sequence[MemoryKind | str] | None = None
    tags: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class RecallQuery:
    text: str
    filter: MemoryFilter
    limit: int

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
) -> RecallQuery:
    problems: list[FieldProblem] = []
    query = (text or "").strip()
    if not query:
        problems.append(FieldProblem("query", "must not be empty"))
    elif len(query) > MAX_QUERY_CHARS:
        problems.append(FieldProblem("query", f"is longer than {MAX_QUERY_CHARS} characters"))
    limit = DEFAULT_MAX_RESULTS if max_results is None else max_results
    if not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        problems.append(FieldProblem("max_results", f"must be 1..{MAX_RESULTS}, got {limit!r}"))
    memory_filter = _build_filter(selection, principal, now, problems)
    if problems:
        raise InvalidInput(problems)
    return RecallQuery(text=query, filter=memory_filter, limit=limit)


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
    scope = None
    if selection.scope is not None:
        scope = parse_enum(Scope, selection.scope, "scope", problems)
    product_id = selection.product_id or None
    if scope is None and product_id:
        scope = Scope.PRODUCT
    if scope is not None:
        problems += scope_problems(scope, product_id)
    return replace(
        view_of(principal),
        scope=scope,
        product_id=product_id,
        kinds=_parse_kinds(selection.kinds, problems),
        tags=_parse_tags(selection.tags, problems),
        live_at=now,
    )


def _parse_kinds(
    kinds: Sequence[MemoryKind | str] | None, problems: list[FieldProblem]
) -> frozenset[MemoryKind] | None:
    if not kinds:
        return None
    parsed = {parse_enum(MemoryKind, k, "kinds", problems) for k in kinds}
    return frozenset(k for k in parsed if k is not None)


def _parse_tags(tags: Sequence[str] | None, problems: list[FieldProblem]) -> frozenset[str] | None:
    if not tags:
        return None
    cleaned = frozenset(t.strip().lower() for t in tags)
    bad = sorted(t for t in cleaned if not TAG_PATTERN.match(t))
    if bad:
        problems.append(FieldProblem("tag", f"invalid tag(s) {bad}"))
    return cleaned
