"""Mapping of a memory's curation state and of an update's changes to and from protobuf."""

from __future__ import annotations

from memhive.v1 import memory_pb2 as pb
from memhive_domain.changes import MemoryChanges
from memhive_domain.curation import AuthorKind, Curation, Flag, FlagDraft, FlagKind
from memhive_domain.scopes import Visibility

from memhive_contracts.timestamps import from_timestamp, moment_of, set_timestamp

_FLAG = {k: getattr(pb, f"FLAG_KIND_{k.name}") for k in FlagKind}
_FLAG_BACK = {v: k for k, v in _FLAG.items()}
_AUTHOR = {k: getattr(pb, f"AUTHOR_KIND_{k.name}") for k in AuthorKind}
_AUTHOR_BACK = {v: k for k, v in _AUTHOR.items()}
_VISIBILITY = {v: getattr(pb, f"VISIBILITY_{v.name}") for v in Visibility}
_VISIBILITY_BACK = {v: k for k, v in _VISIBILITY.items()}


def curation_to_pb(state: Curation) -> pb.MemoryCuration:
    message = pb.MemoryCuration(
        flags=[_flag_to_pb(f) for f in state.flags],
        confirmations=state.confirmations,
        corrections=state.corrections,
        author_kind=_AUTHOR[state.author_kind] if state.author_kind else 0,
    )
    set_timestamp(message.last_confirmed_at, state.last_confirmed_at)
    set_timestamp(message.promoted_at, state.promoted_at)
    return message


def curation_from_pb(message: pb.MemoryCuration) -> Curation:
    return Curation(
        flags=tuple(_flag_from_pb(f) for f in message.flags if f.kind in _FLAG_BACK),
        confirmations=message.confirmations,
        last_confirmed_at=moment_of(message, "last_confirmed_at"),
        corrections=message.corrections,
        promoted_at=moment_of(message, "promoted_at"),
        author_kind=_AUTHOR_BACK.get(message.author_kind),
    )


def changes_to_pb(changes: MemoryChanges) -> pb.MemoryChanges:
    """For changes the domain has checked (enums parsed)."""
    message = pb.MemoryChanges(
        clear_expiry=changes.clear_expiry,
        clear_occurred_at=changes.clear_occurred_at,
        clear_flag_ids=list(changes.clear_flag_ids),
        clear_all_flags=changes.clear_all_flags,
        confirm=changes.confirm,
        promote=changes.promote,
    )
    if changes.body is not None:
        message.body = changes.body
    if changes.importance is not None:
        message.importance = changes.importance
    if changes.tags is not None:
        message.tags.CopyFrom(pb.TagList(tags=list(changes.tags)))
    if changes.visibility is not None:
        message.visibility = _VISIBILITY[Visibility(changes.visibility)]
    set_timestamp(message.expires_at, changes.expires_at)
    set_timestamp(message.occurred_at, changes.occurred_at)
    if changes.add_flag is not None:
        message.add_flag = _FLAG[FlagKind(changes.add_flag.kind)]
        message.flag_reason = changes.add_flag.reason
    return message


def changes_from_pb(message: pb.MemoryChanges) -> MemoryChanges:
    """Untrusted (hooks publish commands too): unknown enum values become strings the domain
    refuses, and `checked_changes` checks the rest."""
    flag = None
    if message.add_flag:
        flag = FlagDraft(_FLAG_BACK.get(message.add_flag, "unspecified"), message.flag_reason)
    return MemoryChanges(
        body=message.body if message.HasField("body") else None,
        importance=message.importance if message.HasField("importance") else None,
        tags=tuple(message.tags.tags) if message.HasField("tags") else None,
        visibility=_VISIBILITY_BACK.get(message.visibility, "unspecified")
        if message.visibility
        else None,
        expires_at=moment_of(message, "expires_at"),
        clear_expiry=message.clear_expiry,
        occurred_at=moment_of(message, "occurred_at"),
        clear_occurred_at=message.clear_occurred_at,
        add_flag=flag,
        clear_flag_ids=tuple(message.clear_flag_ids),
        clear_all_flags=message.clear_all_flags,
        confirm=message.confirm,
        promote=message.promote,
    )


def _flag_to_pb(flag: Flag) -> pb.MemoryFlag:
    message = pb.MemoryFlag(
        id=flag.id, kind=_FLAG[flag.kind], reason=flag.reason, flagged_by=flag.flagged_by
    )
    set_timestamp(message.flagged_at, flag.flagged_at)
    return message


def _flag_from_pb(message: pb.MemoryFlag) -> Flag:
    return Flag(
        id=message.id,
        kind=_FLAG_BACK[message.kind],
        reason=message.reason,
        flagged_by=message.flagged_by,
        flagged_at=from_timestamp(message.flagged_at),
    )
