"""Recall semantics of edges: which memories are stale, and which current memory replaces them.

A live memory supersedes another when it `updates` it, or when it `contradicts` it
(either direction) and is the newer of the two. Following those links leads to a
memory's head: the current memory an agent should get instead. Edges to or from a
forgotten, expired or unknown memory do not count, and neither do successors the reader
may not see: a reader never loses a memory to a successor it cannot read (an agent's
private memory superseding a shared one changes nothing for the others, who keep the
original as current).

The domain does no I/O, so a use case drives resolution in two steps: ask
successor_ids_to_fetch which records are missing, fetch them with their edges, repeat
until nothing is missing (at most MAX_SUCCESSOR_ROUNDS times), then resolve_supersession.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive_domain.edges import Edge, EdgeKind, demoted_ends
from memhive_domain.memory import Memory
from memhive_domain.ranking import RankedMemory

# A chain longer than this beyond the candidates resolves to the last memory fetched.
MAX_SUCCESSOR_ROUNDS = 8

# memory id -> the edges touching it (either end); an edge listed under both ends counts once.
EdgesOf = Mapping[str, Sequence[Edge]]


@dataclass(frozen=True, slots=True)
class ResolvedMemory:
    memory: Memory
    score: float
    replaces: tuple[str, ...] = ()  # stale candidates this memory stands in for, best first
    superseded_by: str | None = None  # only with include_superseded: the head that replaces it


def superseding_edges(edges: Iterable[Edge]) -> tuple[Edge, ...]:
    """The edges that can make one end stale (`demoted_ends`: updates, contradicts). Most
    records carry only `related_to` links (the classifier's), and a recall with none of
    these skips resolution altogether."""
    return tuple(e for e in edges if demoted_ends(e))


def successor_ids_to_fetch(
    candidates: Sequence[RankedMemory],
    edges_of: EdgesOf,
    known: Mapping[str, Memory],
    is_visible: Callable[[Memory], bool] = lambda _: True,
) -> set[str]:
    """Ids of possible successors of the candidates whose records are not yet known.

    Walks from the candidates through every visible successor already known, so each
    round reaches one step further along a chain (never past one the reader cannot see).
    Ids the store turned out not to have come back again: the caller subtracts what it
    already tried.
    """
    memories = _memories_of(candidates, _visible(known, is_visible))
    touching = _edges_by_end(edges_of)
    missing: set[str] = set()
    seen: set[str] = set()
    pending = [r.memory.id for r in candidates]
    while pending:
        node = pending.pop()
        if node in seen or memories[node].forgotten:
            continue
        seen.add(node)
        for edge in touching.get(node, ()):
            other = _possible_successor(edge, node)
            if other is not None and other not in memories and other not in known:
                missing.add(other)
            elif (successor := _successor(edge, node, memories)) is not None:
                pending.append(successor)
    return missing


def resolve_supersession(
    candidates: Sequence[RankedMemory],
    edges_of: EdgesOf,
    known: Mapping[str, Memory],
    *,
    now: datetime,
    is_visible: Callable[[Memory], bool],
    include_superseded: bool = False,
) -> list[ResolvedMemory]:
    """The recall result with stale memories replaced by their heads, best score first.

    A stale candidate is dropped; its head takes its place (once, however many stale
    candidates it replaces), marked with what it replaces and scored as the best of
    itself and them, since the stale ones matched the query for it. Only successors the
    caller may see (`is_visible`) count: past one it cannot see, a chain ends, and a
    memory whose every successor is hidden stays current for this caller. With
    include_superseded, stale candidates come back as well, marked superseded_by.
    Candidates are taken as already filtered and visible; nothing is truncated, so the
    caller applies its limit afterwards.
    """
    memories = _memories_of(candidates, _visible(known, is_visible))
    graph = _SupersessionGraph(memories, edges_of, now)
    current, stale = _split_by_head(candidates, graph)
    resolved = [_standing_in(r.memory, r.score, stale.get(i, ())) for i, r in current.items()]
    resolved += [_standing_in(graph.memory(h), None, stale[h]) for h in stale.keys() - current]
    if include_superseded:
        resolved += [_superseded(r, h) for h in stale for r in stale[h]]
    return sorted(resolved, key=_result_order)


def superseded_ids(memories: Iterable[Memory], edges_of: EdgesOf, now: datetime) -> set[str]:
    """Which of these memories a live successor among them supersedes (e.g. for bulletins:
    given what one audience is shown, successors outside it do not count)."""
    if not any(map(superseding_edges, edges_of.values())):
        return set()  # nothing can supersede anything: no graph to build
    by_id = {m.id: m for m in memories}
    graph = _SupersessionGraph(by_id, edges_of, now)
    return {memory_id for memory_id in by_id if graph.head(memory_id) != memory_id}


class _SupersessionGraph:
    """Live memories, each pointing at the live memories that directly supersede it."""

    def __init__(self, memories: Mapping[str, Memory], edges_of: EdgesOf, now: datetime) -> None:
        self._memories = {i: m for i, m in memories.items() if m.is_live(now)}
        touching = _edges_by_end(edges_of)
        self._successors = {n: self._direct_successors(n, touching) for n in self._memories}
        self._reach_of: dict[str, frozenset[str]] = {}

    def memory(self, memory_id: str) -> Memory:
        return self._memories[memory_id]

    def head(self, node: str) -> str:
        """The newest memory at the end of node's chains; node itself when nothing supersedes it.

        Cycles end at their newest member, so resolution terminates and is deterministic.
        """
        if node not in self._memories:
            return node
        ends = [m for m in self._reach(node) | {node} if self._is_end(m)]
        return max(ends, key=lambda m: _age(self._memories[m]))

    def _direct_successors(self, node: str, touching: Mapping[str, list[Edge]]) -> set[str]:
        found = (_successor(edge, node, self._memories) for edge in touching.get(node, ()))
        return {s for s in found if s is not None}

    def _reach(self, node: str) -> frozenset[str]:
        if node not in self._reach_of:
            seen: set[str] = set()
            pending = list(self._successors[node])
            while pending:
                current = pending.pop()
                if current not in seen:
                    seen.add(current)
                    pending.extend(self._successors[current])
            self._reach_of[node] = frozenset(seen)
        return self._reach_of[node]

    def _is_end(self, node: str) -> bool:
        """Nothing lies beyond it except what leads back to it (a cycle)."""
        return all(node in self._reach(other) for other in self._reach(node))


def _split_by_head(
    candidates: Sequence[RankedMemory], graph: _SupersessionGraph
) -> tuple[dict[str, RankedMemory], dict[str, list[RankedMemory]]]:
    """Current candidates by id, and stale candidates grouped by their head, in rank order."""
    current: dict[str, RankedMemory] = {}
    stale: dict[str, list[RankedMemory]] = {}
    for ranked in candidates:
        head = graph.head(ranked.memory.id)
        if head == ranked.memory.id:
            current.setdefault(head, ranked)
        else:
            stale.setdefault(head, []).append(ranked)
    return current, stale


def _possible_successor(edge: Edge, node: str) -> str | None:
    """The other end, if this edge could make node stale (before ages are known)."""
    if edge.src_id == edge.dst_id:
        return None
    if edge.kind is EdgeKind.UPDATES and edge.dst_id == node:
        return edge.src_id
    if edge.kind is EdgeKind.CONTRADICTS and edge.touches(node):
        return edge.other_end(node)
    return None


def _successor(edge: Edge, node: str, memories: Mapping[str, Memory]) -> str | None:
    """The other end, if it is known and this edge makes node stale."""
    other = _possible_successor(edge, node)
    if other is None or other not in memories:
        return None
    if edge.kind is EdgeKind.CONTRADICTS and _age(memories[other]) < _age(memories[node]):
        return None
    return other


def _age(memory: Memory) -> tuple[datetime, str]:
    # UUIDv7 ids sort by creation too, so they break created_at ties the same way.
    return (memory.created_at, memory.id)


def _memories_of(
    candidates: Sequence[RankedMemory], known: Mapping[str, Memory]
) -> dict[str, Memory]:
    return {**known, **{r.memory.id: r.memory for r in candidates}}


def _visible(
    known: Mapping[str, Memory], is_visible: Callable[[Memory], bool]
) -> dict[str, Memory]:
    return {i: m for i, m in known.items() if is_visible(m)}


def _edges_by_end(edges_of: EdgesOf) -> dict[str, list[Edge]]:
    """The edges that can make an end stale, by end: `related_to` never does, and it is
    most of what records carry (a bulletin's page of near-duplicates, thousands)."""
    unique = {edge.key: edge for edges in edges_of.values() for edge in edges if demoted_ends(edge)}
    by_end: dict[str, list[Edge]] = {}
    for edge in unique.values():
        for end in dict.fromkeys((edge.src_id, edge.dst_id)):
            by_end.setdefault(end, []).append(edge)
    return by_end


def _standing_in(
    memory: Memory, own_score: float | None, stale: Sequence[RankedMemory]
) -> ResolvedMemory:
    scores = [s.score for s in stale] + ([] if own_score is None else [own_score])
    return ResolvedMemory(memory, max(scores), replaces=tuple(s.memory.id for s in stale))


def _superseded(ranked: RankedMemory, head: str) -> ResolvedMemory:
    return ResolvedMemory(ranked.memory, ranked.score, superseded_by=head)


def _result_order(r: ResolvedMemory) -> tuple[float, bool, float, str]:
    # A head inherits its stale memory's score, so on a tie it must come first.
    return (-r.score, r.superseded_by is not None, -r.memory.created_at.timestamp(), r.memory.id)
