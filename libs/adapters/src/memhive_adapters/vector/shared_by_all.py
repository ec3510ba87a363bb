"""What every point of an embedded vector lane has in common, so that a search leaves out
the conditions every point meets.

qdrant-edge answers a filter of one condition from its payload index, but checks a filter
of two or more point by point on a segment outside HNSW: at 20,000 points ~5.4 ms against
~1.6 with one condition or none (measured; docs/benchmarks.md, "One condition or none").
The common store (one workspace, no memory that expires, no nested or agent-local node)
needs none of a member's three (`workspace_id`, not `local`, not expired).

Only the lane's writer (one process) keeps the facts: it widens them before a write that
breaks one, and never narrows them until the lane is opened again (a delete leaves them as
they were), so a condition is left out only while every point meets it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import qdrant_edge as qe

from memhive_adapters.lane_conditions import (
    LOCAL,
    NESTED,
    NEVER,
    After,
    Condition,
    Equals,
    Excludes,
)

# Scope tokens few points carry: a condition excluding them is left out until one does.
RARE_TOKENS = frozenset({NESTED, LOCAL})


@dataclass
class SharedByAll:
    workspace: str | None = None  # every point's workspace, when they share one
    several_workspaces: bool = False
    expiring: bool = False  # some point expires (or has no expiry field: an older point)
    tokens: set[str] = field(default_factory=set)  # the rare tokens some point carries
    version: int = 0  # moves on at each widening

    @classmethod
    def read(cls, shard: qe.EdgeShard) -> SharedByAll:
        """The facts of a lane as opened: counts from the payload index, one condition each."""
        facts = cls()
        total = shard.count(qe.CountRequest(exact=True))
        if total == 0:
            return facts  # the first write tells
        hits = shard.facet(qe.FacetRequest("workspace_id", limit=2, exact=True)).hits
        if len(hits) == 1 and hits[0].count == total:
            facts.workspace = str(hits[0].value)
        else:
            facts.several_workspaces = True
        never = qe.FieldCondition("expires_at", range=qe.RangeFloat(gte=NEVER))
        facts.expiring = _count(shard, never) != total
        for token in RARE_TOKENS:
            if _count(shard, qe.FieldCondition("scope", match=qe.MatchValue(token))):
                facts.tokens.add(token)
        return facts

    def reread(self, shard: qe.EdgeShard | None) -> SharedByAll:
        """The facts of the lane opened again (None: created empty), at a later version than
        these: a write that widens them waits for the searches planned with these too."""
        facts = SharedByAll() if shard is None else SharedByAll.read(shard)
        facts.version = self.version + 1
        return facts

    def widen(self, points: Iterable[Mapping[str, object]]) -> bool:
        """Takes in the stored fields of points about to be written; True when a fact that a
        search may have left a condition out for no longer holds (the caller lets searches
        planned before finish first). An empty lane's first workspace is no such fact: its
        searches kept the workspace condition."""
        widened = False
        for fields in points:
            workspace = str(fields.get("workspace_id", ""))
            if self.workspace is None and not self.several_workspaces:
                self.workspace = workspace
            elif workspace != self.workspace and not self.several_workspaces:
                self.workspace, self.several_workspaces, widened = None, True, True
            if fields.get("expires_at") != NEVER and not self.expiring:
                self.expiring = widened = True
            tokens = fields.get("scope")
            new = RARE_TOKENS.intersection(tokens if isinstance(tokens, list) else ()) - self.tokens
            if new:
                self.tokens |= new
                widened = True
        if widened:
            self.version += 1
        return widened

    def needed(self, conditions: Sequence[Condition]) -> tuple[Condition, ...]:
        """The conditions some point may fail, in their order."""
        return tuple(c for c in conditions if not self._met_by_all(c))

    def _met_by_all(self, condition: Condition) -> bool:
        match condition:
            case Equals("workspace_id", value):
                return not self.several_workspaces and self.workspace == value
            case Excludes("scope", values):
                return set(values) <= RARE_TOKENS and not self.tokens.intersection(values)
            case After("expires_at", moment):
                return not self.expiring and moment < NEVER
        return False


def _count(shard: qe.EdgeShard, condition: qe.FieldCondition) -> int:
    return shard.count(qe.CountRequest(exact=True, filter=qe.Filter(must=[condition])))
