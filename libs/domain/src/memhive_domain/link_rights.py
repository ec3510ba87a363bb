"""Who may add an edge between two memories: rights follow the target. The linker must read
both ends, write src's node (its record holds the edge) and the node of every end the edge
demotes (`edges.written_ends`: dst for `updates`, both for `contradicts`). Ingest applies it
to a command's requester, an import to each edge of its file; the gateway's link answers
the same rule as 404 (an end it cannot read) and 403 (a node it cannot write)."""

from __future__ import annotations

from memhive_domain.edges import Edge, written_ends
from memhive_domain.errors import NotAllowed
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import ensure_writable, reads_memory


def link_refusal(principal: Principal, edge: Edge, src: Memory, dst: Memory) -> str | None:
    """Why the principal may not add this edge, or None when it may."""
    doing = f"link {edge.kind.value}"
    for end in (src, dst):
        if not reads_memory(principal, end.scope_ref, end.visibility):
            return f"cannot {doing}: memory {end.id} is outside its view"
    try:
        for end in (src, dst):
            if end.id in written_ends(edge):
                ensure_writable(principal, end.scope_ref, doing)
    except NotAllowed as refused:
        return str(refused)
    return None
