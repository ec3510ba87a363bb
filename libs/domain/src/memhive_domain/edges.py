"""Edges between memories: typed, directed links, and the rules for proposing and keeping them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput, NotFound
from memhive_domain.memory import Memory
from memhive_domain.text import MAX_ID_CHARS, checked_text, unencodable

MAX_RATIONALE_CHARS = 500
# An agent or user who links two memories by hand is sure of it; the classifier says how sure.
DEFAULT_WEIGHT = 1.0


class EdgeKind(StrEnum):
    RELATED_TO = "related_to"
    UPDATES = "updates"  # src is the newer version of dst: dst is stale
    CONTRADICTS = "contradicts"  # the two cannot both hold: the newer wins


class CreatorKind(StrEnum):
    AGENT = "agent"
    USER = "user"
    CLASSIFIER = "classifier"


EdgeKey = tuple[str, str, EdgeKind]


@dataclass(frozen=True, slots=True)
class Edge:
    src_id: str
    dst_id: str
    kind: EdgeKind
    weight: float
    created_by: str
    creator_kind: CreatorKind
    rationale: str
    created_at: datetime

    @property
    def key(self) -> EdgeKey:
        """At most one edge of a kind runs from one memory to another."""
        return (self.src_id, self.dst_id, self.kind)

    def touches(self, memory_id: str) -> bool:
        return memory_id in (self.src_id, self.dst_id)

    def other_end(self, memory_id: str) -> str:
        return self.dst_id if memory_id == self.src_id else self.src_id


@dataclass(frozen=True, slots=True)
class EdgeDraft:
    """What a caller asks to link, before any rule has been checked.

    Enum fields accept their string values too, so every entry point reports the same problems.
    """

    src_id: str
    dst_id: str
    kind: EdgeKind | str
    weight: float | None = None  # None: DEFAULT_WEIGHT
    rationale: str = ""
    creator_kind: CreatorKind | str = CreatorKind.AGENT


def propose_edge(draft: EdgeDraft, *, created_by: str, now: datetime) -> Edge:
    """Validate a draft on its own; raises InvalidInput listing every problem.

    Whether both ends exist is a separate check (ensure_linkable): it needs the records.
    """
    problems: list[FieldProblem] = []
    kind = parse_enum(EdgeKind, draft.kind, "kind", problems)
    creator_kind = parse_enum(CreatorKind, draft.creator_kind, "creator_kind", problems)
    src_id, dst_id = _check_ends(draft.src_id, draft.dst_id, problems)
    weight = _check_weight(draft.weight, problems)
    rationale = _check_rationale(draft.rationale, problems)
    if not (created_by or "").strip() or unencodable("created_by", created_by):
        problems.append(FieldProblem("created_by", "must name the agent, user or classifier"))
    if problems:
        raise InvalidInput(problems)
    assert kind and creator_kind  # narrowed: no problems means both parsed
    return Edge(src_id, dst_id, kind, weight, created_by.strip(), creator_kind, rationale, now)


def ensure_linkable(
    edge: Edge, src: Memory | None, dst: Memory | None, *, workspace_id: str, now: datetime
) -> None:
    """Both ends must be live memories of the caller's workspace.

    A memory of another workspace is reported as not found, so a link attempt
    cannot probe which ids exist elsewhere.
    """
    for expected_id, memory in ((edge.src_id, src), (edge.dst_id, dst)):
        if memory is None or memory.id != expected_id or memory.workspace_id != workspace_id:
            raise NotFound("memory", expected_id)
    assert src is not None and dst is not None  # narrowed: both found above
    problems = [p for p in (_dead_end("src_id", src, now), _dead_end("dst_id", dst, now)) if p]
    if problems:
        raise InvalidInput(problems)


def demoted_ends(edge: Edge) -> tuple[str, ...]:
    """The ends whose standing the edge changes, whose nodes the linker must write as well
    as src's: `updates` makes dst stale; `contradicts` demotes the older end, which may be
    either; `related_to` changes neither."""
    if edge.kind is EdgeKind.UPDATES:
        return (edge.dst_id,)
    if edge.kind is EdgeKind.CONTRADICTS:
        return (edge.src_id, edge.dst_id)
    return ()


def written_ends(edge: Edge) -> tuple[str, ...]:
    """The ends whose nodes the linker must write: src (its record holds the edge) and
    every end the edge demotes."""
    return tuple(dict.fromkeys((edge.src_id, *demoted_ends(edge))))


def add_edge(existing: tuple[Edge, ...], edge: Edge) -> tuple[Edge, ...]:
    """Add or refresh an edge, unique per (src, dst, kind).

    Proposing an edge that is already there changes only its weight and rationale,
    and returns `existing` itself when neither changed, so callers can tell "no change"
    by identity and skip the write and the event.
    A classifier's edge is a guess and yields to an author's on the same pair, whichever
    comes first: it is not added beside one, and an author's edge replaces it. (A save with
    `supersedes` links after it is indexed, and the classifier may see it in between.)
    """
    pair = {edge.src_id, edge.dst_id}
    others = [e for e in existing if {e.src_id, e.dst_id} == pair and e.kind != edge.kind]
    if edge.creator_kind is CreatorKind.CLASSIFIER:
        if any(e.creator_kind is not CreatorKind.CLASSIFIER for e in others):
            return existing
    elif guesses := [e for e in others if e.creator_kind is CreatorKind.CLASSIFIER]:
        existing = tuple(e for e in existing if e not in guesses)
    for index, current in enumerate(existing):
        if current.key == edge.key:
            if (current.weight, current.rationale) == (edge.weight, edge.rationale):
                return existing
            refreshed = replace(current, weight=edge.weight, rationale=edge.rationale)
            return existing[:index] + (refreshed,) + existing[index + 1 :]
    return (*existing, edge)


def add_edges(existing: tuple[Edge, ...], edges: Iterable[Edge]) -> tuple[Edge, ...]:
    """Fold several edges into one record's edges, in order, as add_edge one by one would:
    a command's edges that share an end are written to it once. `existing` itself when
    none changed anything."""
    for edge in edges:
        existing = add_edge(existing, edge)
    return existing


def _check_ends(src_id: str, dst_id: str, problems: list[FieldProblem]) -> tuple[str, str]:
    ends = []
    for field, value in (("src_id", src_id), ("dst_id", dst_id)):
        text = value.strip() if isinstance(value, str) else ""
        if (problem := unencodable(field, text)) is not None:
            problems.append(problem)
            text = ""
        elif not text or len(text) > MAX_ID_CHARS or not text.isprintable():
            problems.append(FieldProblem(field, "must be the id of a memory"))
            text = ""
        ends.append(text)
    src, dst = ends
    if src and src == dst:
        problems.append(FieldProblem("dst_id", "must differ from src_id: no memory links itself"))
    return src, dst


def _check_weight(weight: float | None, problems: list[FieldProblem]) -> float:
    if weight is None:
        return DEFAULT_WEIGHT
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0.0 <= weight <= 1.0:
        problems.append(FieldProblem("weight", f"must be between 0 and 1, got {weight!r}"))
        return DEFAULT_WEIGHT
    return float(weight)


def _check_rationale(rationale: str | None, problems: list[FieldProblem]) -> str:
    return checked_text("rationale", rationale, MAX_RATIONALE_CHARS, problems, required=False)


def _dead_end(field: str, memory: Memory, now: datetime) -> FieldProblem | None:
    if memory.forgotten:
        return FieldProblem(field, f"memory {memory.id!r} was forgotten; link a live memory")
    if memory.is_expired(now):
        return FieldProblem(field, f"memory {memory.id!r} has expired; link a live memory")
    return None
