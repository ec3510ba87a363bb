"""Near-duplicates linked once per group, not to every copy.

A text saved n times (a hook replaying its history, an agent saving the same finding in
every session) would otherwise be linked to its k nearest copies each time: ~n x k edges
for one text, each a rewrite of both records by ingest, and read back with every record
(recall, the bulletins, the classifier itself), for nothing a reader can use. A new memory
is linked to the most similar memory of each group it duplicates. Memories already linked
as near-duplicates, directly or through a memory both are linked to (what their records
show), are one group; so are the links this classifier proposed earlier in the same batch.

Only near-duplicate links are grouped: `updates`, `contradicts` and an LLM's own
`related_to` say something about the pair, and each is proposed as it is.
"""

from __future__ import annotations

from collections.abc import Iterable

from memhive_domain.edges import Edge, EdgeKind
from memhive_ports import EdgeProposal

from memhive_link_classifier.fallback import NEAR_DUPLICATE


class NearDuplicateGroups:
    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def learn(self, edges: Iterable[Edge]) -> None:
        """What records show: their near-duplicate links join their ends' groups."""
        for edge in edges:
            if _near_duplicate(edge.kind, edge.rationale):
                self._join(edge.src_id, edge.dst_id)

    def fewest(self, memory_id: str, proposals: list[EdgeProposal]) -> list[EdgeProposal]:
        """The proposals for `memory_id` (most similar first, as the classifier ranks them)
        less each near-duplicate link to a group it is already linked to; the kept ones join
        its group."""
        kept = []
        for proposal in proposals:
            if _near_duplicate(proposal.kind, proposal.rationale):
                other = proposal.dst_id if proposal.src_id == memory_id else proposal.src_id
                if self._root(other) == self._root(memory_id):
                    continue
                self._join(memory_id, other)
            kept.append(proposal)
        return kept

    def _root(self, memory_id: str) -> str:
        root = memory_id
        while (parent := self._parent.setdefault(root, root)) != root:
            root = parent
        while memory_id != root:  # path compression: the next look-up is one step
            self._parent[memory_id], memory_id = root, self._parent[memory_id]
        return root

    def _join(self, a: str, b: str) -> None:
        self._parent[self._root(a)] = self._root(b)


def _near_duplicate(kind: EdgeKind, rationale: str) -> bool:
    return kind is EdgeKind.RELATED_TO and rationale.startswith(NEAR_DUPLICATE)
