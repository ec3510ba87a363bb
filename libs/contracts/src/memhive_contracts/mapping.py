"""Mapping between domain memories and their protobuf shape. Only edges of the system call it."""

from __future__ import annotations

from memhive.v1 import memory_pb2 as pb
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory, MemoryDraft
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source

from memhive_contracts.curation_mapping import curation_from_pb, curation_to_pb
from memhive_contracts.mentions_mapping import mentions_from_pb, mentions_to_pb
from memhive_contracts.timestamps import from_timestamp as from_timestamp  # imported from here
from memhive_contracts.timestamps import moment_of, set_timestamp
from memhive_contracts.timestamps import to_timestamp as to_timestamp  # imported from here

_KIND = {k: getattr(pb, f"MEMORY_KIND_{k.name}") for k in MemoryKind}
_SCOPE = {s: getattr(pb, f"SCOPE_{s.name}") for s in Scope}
_VISIBILITY = {v: getattr(pb, f"VISIBILITY_{v.name}") for v in Visibility}
_SOURCE = {s: getattr(pb, f"SOURCE_{s.name}") for s in Source}
_KIND_BACK = {v: k for k, v in _KIND.items()}
_SCOPE_BACK = {v: k for k, v in _SCOPE.items()}
_VISIBILITY_BACK = {v: k for k, v in _VISIBILITY.items()}
_SOURCE_BACK = {v: k for k, v in _SOURCE.items()}


def visibility_to_pb(visibility: Visibility) -> int:
    return _VISIBILITY[visibility]


def visibility_from_pb(value: int) -> Visibility | None:
    """None for VISIBILITY_UNSPECIFIED (or a value this version does not know)."""
    return _VISIBILITY_BACK.get(value)


_MOMENTS = (
    "expires_at",
    "last_accessed_at",
    "forgotten_at",
    "created_at",
    "updated_at",
    "occurred_at",
)


def memory_to_pb(memory: Memory) -> pb.Memory:
    message = pb.Memory(
        id=memory.id,
        workspace_id=memory.workspace_id,
        kind=_KIND[memory.kind],
        body=memory.body,
        importance=memory.importance,
        pinned=memory.pinned,
        tags=list(memory.tags),
        scope=_SCOPE[memory.scope],
        product_id=memory.product_id or "",
        team_id=memory.team_id or "",
        agent_id=memory.agent_id or "",
        visibility=_VISIBILITY[memory.visibility],
        source=_SOURCE[memory.source],
        source_ref=memory.source_ref or "",
        created_by=memory.created_by,
        access_count=memory.access_count,
        forgotten=memory.forgotten,
        revision=memory.revision,
        curation=curation_to_pb(memory.curation),
    )
    for name in _MOMENTS:
        set_timestamp(getattr(message, name), getattr(memory, name))
    if memory.mentions is not None:
        message.mentions.CopyFrom(mentions_to_pb(memory.mentions))
    return message


def memory_from_pb(message: pb.Memory) -> Memory:
    """For records we wrote ourselves; untrusted input goes through draft_from_pb and the domain."""
    return Memory(
        id=message.id,
        workspace_id=message.workspace_id,
        kind=_KIND_BACK[message.kind],
        body=message.body,
        importance=message.importance,
        pinned=message.pinned,
        tags=tuple(message.tags),
        scope=_SCOPE_BACK[message.scope],
        product_id=message.product_id or None,
        team_id=message.team_id or None,
        agent_id=message.agent_id or None,
        visibility=_VISIBILITY_BACK.get(message.visibility, Visibility.PRIVATE),
        source=_SOURCE_BACK.get(message.source, Source.AGENT),
        source_ref=message.source_ref or None,
        created_by=message.created_by,
        expires_at=moment_of(message, "expires_at"),
        created_at=moment_of(message, "created_at"),
        updated_at=moment_of(message, "updated_at"),
        revision=message.revision,
        access_count=message.access_count,
        last_accessed_at=moment_of(message, "last_accessed_at"),
        forgotten=message.forgotten,
        forgotten_at=moment_of(message, "forgotten_at"),
        curation=curation_from_pb(message.curation),
        occurred_at=moment_of(message, "occurred_at"),
        mentions=mentions_from_pb(message.mentions) if message.HasField("mentions") else None,
    )


def draft_from_pb(message: pb.Memory) -> MemoryDraft:
    """A command's memory as a draft: unknown enum values become strings the domain rejects.
    An unspecified visibility is left to inheritance (default_visibility)."""
    return MemoryDraft(
        kind=_KIND_BACK.get(message.kind, "unspecified"),
        body=message.body,
        importance=message.importance if message.HasField("importance") else None,
        pinned=message.pinned,
        tags=tuple(message.tags),
        scope=_SCOPE_BACK.get(message.scope),
        product_id=message.product_id or None,
        scope_path=_nested_path(message),
        visibility=_VISIBILITY_BACK.get(message.visibility),
        source=_SOURCE_BACK.get(message.source, Source.AGENT),
        source_ref=message.source_ref or None,
        expires_at=moment_of(message, "expires_at"),
        occurred_at=moment_of(message, "occurred_at"),
    )


def _nested_path(message: pb.Memory) -> str | None:
    """The path of a node below the first level, for the domain to check; else None."""
    if not (message.team_id or message.agent_id):
        return None
    parts = [f"product:{message.product_id}"] if message.product_id else []
    parts += [f"team:{message.team_id}"] if message.team_id else []
    parts += [f"agent:{message.agent_id}"] if message.agent_id else []
    return "/".join(parts)
