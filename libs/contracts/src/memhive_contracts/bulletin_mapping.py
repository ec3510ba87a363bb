"""Mapping between domain bulletins and BulletinRefreshed, the event and the stored value."""

from __future__ import annotations

from memhive.v1 import bulletins_pb2 as pb
from memhive.v1 import memory_pb2
from memhive_domain.bulletin import Bulletin
from memhive_domain.scopes import Scope, ScopeRef

from memhive_contracts.mapping import from_timestamp, to_timestamp

_SCOPE = {s: getattr(memory_pb2, f"SCOPE_{s.name}") for s in Scope}
_SCOPE_BACK = {v: k for k, v in _SCOPE.items()}


def bulletin_to_pb(
    bulletin: Bulletin, workspace_id: str, scope: ScopeRef, event_id: str = ""
) -> pb.BulletinRefreshed:
    return pb.BulletinRefreshed(
        event_id=event_id,
        workspace_id=workspace_id,
        scope=_SCOPE[scope.scope],
        product_id=scope.product_id or "",
        team_id=scope.team_id or "",
        agent_id=scope.agent_id or "",
        renderer=bulletin.renderer,
        token_count=bulletin.token_count,
        generated_at=to_timestamp(bulletin.generated_at),
        sources=[pb.BulletinSource(id=i, revision=r) for i, r in bulletin.sources],
        text=bulletin.text,
        fingerprint=bulletin.fingerprint,
        shown_memory_ids=list(bulletin.shown_ids),
        pinned_over_budget=bulletin.pinned_over_budget,
    )


def bulletin_from_pb(message: pb.BulletinRefreshed) -> Bulletin:
    return Bulletin(
        scope_key=scope_of(message).key,
        text=message.text,
        token_count=message.token_count,
        generated_at=from_timestamp(message.generated_at, True),
        renderer=message.renderer,
        sources=tuple((s.id, s.revision) for s in message.sources),
        shown_ids=tuple(message.shown_memory_ids),
        fingerprint=message.fingerprint,
        pinned_over_budget=message.pinned_over_budget,
    )


def scope_of(message: pb.BulletinRefreshed) -> ScopeRef:
    return ScopeRef(
        _SCOPE_BACK[message.scope],
        message.product_id or None,
        message.team_id or None,
        message.agent_id or None,
    )
