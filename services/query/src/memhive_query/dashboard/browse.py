"""Use case: the dashboard's index. A page of the workspace listing (newest first, the
listing's own cursor) or the top hybrid-search matches, narrowed by a `Refinement`.

The refinement (visibility, source, created range) is not indexed by the lanes yet, so it
is applied to listing pages as they are read: a request reads at most SCAN_PAGES pages of
the listing and answers with what matched and a cursor to go on. Every request stays
bounded whatever the workspace holds; a rare match may take several "more" clicks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MAX_RESULTS, SelectionRequest, plan_listing
from memhive_domain.refinement import Refinement, parse_refinement
from memhive_domain.scope_tree import tree_view
from memhive_domain.scopes import ROOT_PATH
from memhive_ports import Clock

from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.recall import RecallMemories

PAGE_SIZE = 25
SCAN_PAGES = 8


class Sort(StrEnum):
    RELEVANCE = "relevance"  # search only: the recall order
    NEWEST = "newest"
    IMPORTANCE = "importance"  # search only: among the matches shown


@dataclass(frozen=True, slots=True)
class RefinementFields:
    """As typed in the form; see `parse_refinement`."""

    visibility: str | None = None
    source: str | None = None
    created_from: str | None = None
    created_to: str | None = None


@dataclass(frozen=True, slots=True)
class BrowseRequest:
    text: str
    selection: SelectionRequest
    refine: RefinementFields
    sort: Sort
    cursor: str | None = None  # the listing's next_cursor


@dataclass(frozen=True, slots=True)
class BrowsePage:
    items: list[Memory]
    next_cursor: str | None
    searched: bool  # True: the top matches of a search, no further pages
    scanned: int  # listing rows read for this page (0 for a search)
    nodes: list[str]  # scope paths to offer in the form (see `readable_nodes`)


class BrowseMemories:
    def __init__(self, reader: MemoryReader, recall: RecallMemories, clock: Clock) -> None:
        self._reader, self._recall, self._clock = reader, recall, clock

    async def __call__(self, principal: Principal, request: BrowseRequest) -> BrowsePage:
        refinement = self._validate(principal, request)
        if request.text.strip():
            items = await self._search(principal, request, refinement)
            return BrowsePage(items, None, True, 0, readable_nodes(principal, items))
        items, cursor, scanned = await self._list(principal, request, refinement)
        return BrowsePage(items, cursor, False, scanned, readable_nodes(principal, items))

    def _validate(self, principal: Principal, request: BrowseRequest) -> Refinement:
        """Every problem of the form at once: the selection's and the refinement's."""
        problems: list[FieldProblem] = []
        try:
            plan_listing(request.selection, principal=principal, now=self._clock.now())
        except InvalidInput as exc:
            problems += exc.problems
        fields = request.refine
        refinement = parse_refinement(
            fields.visibility, fields.source, fields.created_from, fields.created_to, problems
        )
        if problems:
            raise InvalidInput(problems)
        return refinement

    async def _search(
        self, principal: Principal, request: BrowseRequest, refinement: Refinement
    ) -> list[Memory]:
        recalled = await self._recall(
            principal, request.text, request.selection, MAX_RESULTS, record_hits=False
        )
        items = [r.memory for r in recalled if refinement.matches(r.memory)]
        if request.sort is Sort.NEWEST:
            items.sort(key=lambda m: m.created_at, reverse=True)
        elif request.sort is Sort.IMPORTANCE:
            items.sort(key=lambda m: m.importance, reverse=True)
        return items

    async def _list(
        self, principal: Principal, request: BrowseRequest, refinement: Refinement
    ) -> tuple[list[Memory], str | None, int]:
        items: list[Memory] = []
        cursor: str | None = request.cursor
        scanned = 0
        for _ in range(SCAN_PAGES):
            page = await self._reader.list(principal, request.selection, cursor, PAGE_SIZE)
            scanned += PAGE_SIZE
            items += [m for m in page.items if refinement.matches(m)]
            cursor = page.next_cursor
            if cursor is None or len(items) >= PAGE_SIZE or refinement.is_empty:
                break
        return items, cursor, scanned


def readable_nodes(principal: Principal, shown: list[Memory]) -> list[str]:
    """Nodes of the scope tree worth offering as a filter: the principal's home and its
    ancestors, and the nodes (with their ancestors) of the memories shown, all of which the
    principal reads. The tree has no list of nodes: a node exists while memories live there."""
    view = tree_view(principal)
    nodes = {*view.home.lineage, *(n for m in shown for n in m.scope_ref.lineage)}
    return sorted((n.key for n in nodes if view.admits(n)), key=lambda k: (k != ROOT_PATH, k))
