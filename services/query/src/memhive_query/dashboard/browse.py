"""Use case: the dashboard's index. A page of the workspace listing (newest first, the
listing's own cursor) or the best hybrid-search matches, narrowed by a `Refinement`.

Counts are honest: a listing says how many memories its selection holds (the lexical
lane counts them), a search how many matches it shows, at most MAX_RESULTS, and how many
weaker ones it left out. A search shows what recall would give an agent over MCP (at least
DEFAULT_MIN_CONFIDENCE), and the weaker matches on request, for an audit.

The created range is pushed down to the lanes; visibility and source are not indexed by
the lanes yet, so they are applied to listing pages as they are read: a request reads at
most SCAN_PAGES pages of the listing and answers with what matched and a cursor to go on.
Every request stays bounded whatever the workspace holds; a rare match may take several
"more" clicks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from memhive_domain.confidence import DEFAULT_MIN_CONFIDENCE
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MAX_RESULTS, MemoryFilter, SelectionRequest, plan_listing
from memhive_domain.refinement import Refinement, parse_refinement
from memhive_domain.scope_tree import tree_view
from memhive_domain.scopes import ROOT_PATH
from memhive_ports import Clock, LexicalIndex

from memhive_query.dashboard.standing import Listed, Standing
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
    weaker: bool = False  # a search: also the matches below DEFAULT_MIN_CONFIDENCE


@dataclass(frozen=True, slots=True)
class BrowsePage:
    items: list[Listed]
    next_cursor: str | None
    searched: bool  # True: the best matches of a search, no further pages
    scanned: int  # listing rows read for this page (0 for a search)
    nodes: list[str]  # scope paths to offer in the form (see `readable_nodes`)
    total: int | None = None  # a listing: memories in its selection (before the refinement)
    refined: bool = False  # visibility or source narrowed the listing's pages as read
    weaker_left_out: int = 0  # a search: matches below the confidence floor, not shown


class BrowseMemories:
    def __init__(
        self,
        reader: MemoryReader,
        recall: RecallMemories,
        lexical: LexicalIndex,
        standing: Standing,
        clock: Clock,
    ) -> None:
        self._reader, self._recall, self._lexical = reader, recall, lexical
        self._standing, self._clock = standing, clock

    async def __call__(self, principal: Principal, request: BrowseRequest) -> BrowsePage:
        selection, listing, refinement = self._validate(principal, request)
        request = replace(request, selection=selection)
        if request.text.strip():
            return await self._search(principal, request, refinement)
        items, cursor, scanned = await self._list(principal, request, refinement)
        return BrowsePage(
            await self._standing.of_listing(principal, items),
            cursor,
            False,
            scanned,
            readable_nodes(principal, items),
            total=await self._lexical.count_matching(listing),
            refined=not refinement.is_empty,
        )

    def _validate(
        self, principal: Principal, request: BrowseRequest
    ) -> tuple[SelectionRequest, MemoryFilter, Refinement]:
        """Every problem of the form at once: the selection's and the refinement's. The
        created range moves into the selection (the lanes filter it)."""
        problems: list[FieldProblem] = []
        fields = request.refine
        refinement = parse_refinement(
            fields.visibility, fields.source, fields.created_from, fields.created_to, problems
        )
        selection = replace(
            request.selection,
            created_after=refinement.created_from,
            created_before=refinement.created_before,
        )
        listing = None
        try:
            listing = plan_listing(selection, principal=principal, now=self._clock.now())
        except InvalidInput as exc:
            problems[:0] = exc.problems
        if problems or listing is None:
            raise InvalidInput(problems)
        return selection, listing, Refinement(refinement.visibility, refinement.source)

    async def _search(
        self, principal: Principal, request: BrowseRequest, refinement: Refinement
    ) -> BrowsePage:
        """Superseded matches come back too, marked with their successor: an audit sees
        what an agent would be steered away from."""
        recalled = await self._recall(
            principal,
            request.text,
            request.selection,
            MAX_RESULTS,
            record_hits=False,
            include_superseded=True,
            min_confidence=0.0,
        )
        matching = [r for r in recalled if refinement.matches(r.memory)]
        confident = [r for r in matching if r.confidence >= DEFAULT_MIN_CONFIDENCE]
        shown = matching if request.weaker else confident
        items = self._standing.of_search(shown)
        if request.sort is Sort.NEWEST:
            items.sort(key=lambda i: i.memory.created_at, reverse=True)
        elif request.sort is Sort.IMPORTANCE:
            items.sort(key=lambda i: i.memory.importance, reverse=True)
        nodes = readable_nodes(principal, [i.memory for i in items])
        return BrowsePage(items, None, True, 0, nodes, weaker_left_out=len(matching) - len(shown))

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
