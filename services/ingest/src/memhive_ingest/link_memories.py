"""Use case: apply a LinkMemories command to the records of its ends, then announce it.

The classifier proposes a new memory's edges to several neighbours in one command, so
the command is applied record by record, not edge by edge: every end is read once, each
edge checked against what was read, all accepted edges folded into each record (domain
add_edges), and each changed record written once, checked against the revision read.
A record someone wrote in between is re-read alone and folded again; the records already
written hold their edges, and re-applying an edge that is there changes nothing, so a
retry neither loses nor doubles one. For the same reason a redelivered or replayed
command writes nothing and announces no edge. A bad edge never blocks the good ones of
its command: they are applied and announced first, then the command is dead-lettered
naming the bad ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive.v1 import edges_pb2
from memhive_contracts import subjects
from memhive_contracts.edge_mapping import edge_draft_from_pb, edge_to_pb
from memhive_contracts.mapping import from_timestamp
from memhive_contracts.requester_mapping import requester_of
from memhive_domain.edges import (
    Edge,
    EdgeKey,
    add_edge,
    add_edges,
    ensure_linkable,
    propose_edge,
)
from memhive_domain.errors import ConcurrentUpdate, InvalidInput, NotAllowed, NotFound
from memhive_domain.link_rights import link_refusal
from memhive_domain.principals import Principal
from memhive_ports import EventPublisher, MemoryStore
from memhive_ports.poison import Poison
from memhive_ports.store import StoredMemory

MAX_ATTEMPTS = 5

Records = dict[str, StoredMemory]  # by memory id: the ends of a command as last read or written
Problems = dict[int, str]  # by the edge's index in the command


@dataclass(frozen=True, slots=True)
class _Proposal:
    index: int
    wire: edges_pb2.Edge
    edge: Edge


@dataclass(frozen=True, slots=True)
class _Rules:
    """What an edge is checked against besides its ends' records."""

    workspace_id: str
    now: datetime
    requester: Principal | None


class LinkMemoriesHandler:
    def __init__(self, store: MemoryStore, publisher: EventPublisher) -> None:
        self._store, self._publisher = store, publisher

    async def __call__(self, workspace_id: str, command: edges_pb2.LinkMemories) -> None:
        when = from_timestamp(command.requested_at, command.HasField("requested_at"))
        if when is None:
            raise Poison("requested_at is required")
        requester = requester_of(workspace_id, command.requested_by, command)
        rules = _Rules(workspace_id, when, requester)
        proposals, problems = _proposals(command, when)
        ends = await self._store.get_many(workspace_id, _ids_of(proposals))
        new = [p.edge for p in proposals if not _holds_in_both(ends, p.edge)]
        ends, accepted, refused = await self._apply(proposals, ends, rules)
        problems |= refused
        # Announced even when every edge was refused: a waiting gateway must learn the
        # outcome (and answer 409), not time out into a 202 for a link never applied.
        linked = _as_they_stand(ends, [e for e in new if e in accepted])
        await self._announce(workspace_id, command, linked, _listed(problems))
        if problems:
            raise Poison("; ".join(_listed(problems)))

    async def _apply(
        self, proposals: list[_Proposal], ends: Records, rules: _Rules
    ) -> tuple[Records, list[Edge], Problems]:
        """The ends as written, the edges accepted, and the problems of those refused.
        Each attempt checks again what it re-read, as each edge's checks did before."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            accepted, refused = _sorted_out(proposals, ends, rules)
            ends, conflicted = await self._write_each(ends, accepted)
            if not conflicted:
                return ends, accepted, refused
            if attempt == MAX_ATTEMPTS:
                raise ConcurrentUpdate(f"memories {', '.join(conflicted)} kept changing; retry")
            # Someone wrote in between (another link, access counts): re-read only theirs.
            fresh = await self._store.get_many(rules.workspace_id, conflicted)
            ends = {m: s for m, s in ends.items() if m not in conflicted} | fresh
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _write_each(self, ends: Records, edges: list[Edge]) -> tuple[Records, list[str]]:
        """The records after writing each changed one once, and the ids whose write
        found them changed since they were read."""
        ids = list(ends)
        written = await asyncio.gather(*(self._write(ends[m], m, edges) for m in ids))
        conflicted = [m for m, stored in zip(ids, written, strict=True) if stored is None]
        kept = {m: s for m, s in zip(ids, written, strict=True) if s is not None}
        return ends | kept, conflicted

    async def _write(
        self, stored: StoredMemory, memory_id: str, edges: list[Edge]
    ) -> StoredMemory | None:
        folded = add_edges(stored.edges, (e for e in edges if e.touches(memory_id)))
        if folded is stored.edges:
            return stored
        try:  # Edges do not change what the memory says: its revision and last command stay.
            return await self._store.replace(stored, stored.memory, stored.last_command_id, folded)
        except ConcurrentUpdate:
            return None

    async def _announce(
        self,
        workspace_id: str,
        command: edges_pb2.LinkMemories,
        edges: list[Edge],
        rejected: list[str],
    ) -> None:
        # Announced even with no edge, so a caller waiting on the command learns it was applied.
        event_id = f"{command.command_id}:linked"
        event = edges_pb2.MemoriesLinked(
            event_id=event_id,
            command_id=command.command_id,
            workspace_id=workspace_id,
            edges=[edge_to_pb(e) for e in edges],
            occurred_at=command.requested_at,
            rejected=rejected,
        )
        subject = subjects.for_workspace(subjects.MEMORIES_LINKED, workspace_id)
        await self._publisher.publish(subject, event, msg_id=event_id)


def _proposals(command: edges_pb2.LinkMemories, when: datetime) -> tuple[list[_Proposal], Problems]:
    """The edges valid on their own, and the problems of the others."""
    proposals: list[_Proposal] = []
    problems: Problems = {}
    for index, wire in enumerate(command.edges):
        try:
            draft = edge_draft_from_pb(wire)
            edge = propose_edge(draft, created_by=command.requested_by, now=when)
            proposals.append(_Proposal(index, wire, edge))
        except InvalidInput as problem:
            problems[index] = _problem(index, wire, problem)
    return proposals, problems


def _sorted_out(
    proposals: list[_Proposal], ends: Records, rules: _Rules
) -> tuple[list[Edge], Problems]:
    """The edges whose ends may be linked as read, and the problems of the others.
    An edge both ends already hold is not checked again: it writes nothing (a redelivery)."""
    accepted: list[Edge] = []
    refused: Problems = {}
    for proposal in proposals:
        try:
            if not _holds_in_both(ends, proposal.edge):
                _check(proposal.edge, ends, rules)
            accepted.append(proposal.edge)
        except (InvalidInput, NotFound, NotAllowed) as problem:
            refused[proposal.index] = _problem(proposal.index, proposal.wire, problem)
    return accepted, refused


def _check(edge: Edge, ends: Records, rules: _Rules) -> None:
    """Both ends live in the workspace, and a requester that may not add the edge
    (link_rights.link_refusal) adds nothing."""
    src, dst = ends.get(edge.src_id), ends.get(edge.dst_id)
    ensure_linkable(
        edge,
        src and src.memory,
        dst and dst.memory,
        workspace_id=rules.workspace_id,
        now=rules.now,
    )
    assert src is not None and dst is not None  # narrowed: ensure_linkable passed
    if rules.requester is not None and (
        refused := link_refusal(rules.requester, edge, src.memory, dst.memory)
    ):
        raise NotAllowed(refused)


def _as_they_stand(ends: Records, edges: Iterable[Edge]) -> list[Edge]:
    """Each edge once, as its src's record now holds it; one that yielded to another
    (an author's edge over a classifier's guess) is not there and not announced."""
    standing: dict[EdgeKey, Edge] = {}
    for edge in edges:
        held = next((e for e in ends[edge.src_id].edges if e.key == edge.key), None)
        if held is not None:
            standing[edge.key] = held
    return list(standing.values())


def _ids_of(proposals: Sequence[_Proposal]) -> list[str]:
    return list(dict.fromkeys(m for p in proposals for m in (p.edge.src_id, p.edge.dst_id)))


def _holds_in_both(ends: Records, edge: Edge) -> bool:
    return all(_holds(ends.get(m), edge) for m in (edge.src_id, edge.dst_id))


def _holds(stored: StoredMemory | None, edge: Edge) -> bool:
    return stored is not None and add_edge(stored.edges, edge) is stored.edges


def _problem(index: int, wire: edges_pb2.Edge, problem: Exception) -> str:
    return f"edge {index} ({wire.src_id}->{wire.dst_id}): {problem}"


def _listed(problems: Problems) -> list[str]:
    return [problems[index] for index in sorted(problems)]
