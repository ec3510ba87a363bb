"""Changing a live memory: which fields may change, how each is checked, and what a change
does to the record (a new revision; a body change is a correction and must be re-embedded).

Every field of `MemoryChanges` is optional: None (or False) leaves it alone, so a change
names only what it changes, and the same rules serve REST, MCP and bus commands from hooks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from memhive_domain.curation import (
    MAX_FLAGS,
    Curation,
    Flag,
    FlagDraft,
    FlagKind,
    check_flag,
)
from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import (
    Memory,
    check_expiry,
    check_importance,
    normalise_body,
    normalise_tags,
)
from memhive_domain.mentions import Mentions, mentions_of
from memhive_domain.policy import Action
from memhive_domain.scopes import Visibility
from memhive_domain.text import id_list_problems
from memhive_domain.time_range import checked_moment

MAX_CLEARED_FLAGS = MAX_FLAGS
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MemoryChanges:
    body: str | None = None
    importance: float | None = None
    tags: Sequence[str] | None = None
    pinned: bool | None = None
    visibility: Visibility | str | None = None
    expires_at: datetime | None = None
    clear_expiry: bool = False  # expires_at cannot say "never" by being None
    occurred_at: datetime | None = None
    clear_occurred_at: bool = False  # back to "when it was saved"
    add_flag: FlagDraft | None = None
    clear_flag_ids: tuple[str, ...] = ()
    clear_all_flags: bool = False
    confirm: bool = False  # a reader reports the memory held (a procedure worked)
    promote: bool = False  # crystallized into a skill

    @property
    def is_empty(self) -> bool:
        return self == MemoryChanges()


def change_action(changes: MemoryChanges) -> Action:
    """What the change is to the policy: a confirmation alone is `confirm`, a flag `flag`,
    anything else, clearing flags included, `update` (audited apart). Each moves the memory's
    standing for every reader, so each needs its node writable (`policy.ON_THE_NODE`)."""
    if changes.is_empty:
        return Action.UPDATE
    if replace(changes, confirm=False).is_empty:
        return Action.CONFIRM
    if replace(changes, add_flag=None, confirm=False).is_empty:
        return Action.FLAG
    return Action.UPDATE


def checked_changes(changes: MemoryChanges, now: datetime) -> MemoryChanges:
    """The changes with every present field checked and normalised; raises InvalidInput
    listing every problem (an empty change is one: say what to change)."""
    problems: list[FieldProblem] = []
    if changes.is_empty:
        problems.append(FieldProblem("body", "nothing to change: give at least one field"))
    if changes.expires_at is not None and changes.clear_expiry:
        problems.append(FieldProblem("expires_at", "give a time or clear it, not both"))
    if changes.occurred_at is not None and changes.clear_occurred_at:
        problems.append(FieldProblem("occurred_at", "give a time or clear it, not both"))
    checked = replace(
        changes,
        body=None if changes.body is None else normalise_body(changes.body, problems),
        importance=_importance(changes.importance, problems),
        tags=None if changes.tags is None else normalise_tags(changes.tags, problems),
        visibility=_visibility(changes.visibility, problems),
        expires_at=check_expiry(changes.expires_at, now, problems),
        occurred_at=checked_moment("occurred_at", changes.occurred_at, problems),
        add_flag=None if changes.add_flag is None else check_flag(changes.add_flag, problems),
        clear_flag_ids=tuple(changes.clear_flag_ids),
    )
    problems += id_list_problems("flag_ids", list(changes.clear_flag_ids), MAX_CLEARED_FLAGS)
    if problems:
        raise InvalidInput(problems)
    return checked


def apply_changes(
    memory: Memory, changes: MemoryChanges, *, by: str, change_id: str, now: datetime
) -> Memory:
    """The memory after `changes` (already checked): a new revision when anything differs,
    else the same object. `change_id` names a new flag, so a replayed change adds it once."""
    updated = replace(
        memory,
        body=_given(changes.body, memory.body),
        importance=_given(changes.importance, memory.importance),
        tags=memory.tags if changes.tags is None else tuple(changes.tags),
        pinned=_given(changes.pinned, memory.pinned),
        visibility=_given(changes.visibility, memory.visibility),
        expires_at=None if changes.clear_expiry else _given(changes.expires_at, memory.expires_at),
        occurred_at=None
        if changes.clear_occurred_at
        else _given(changes.occurred_at, memory.occurred_at),
        curation=_curated(memory, changes, by, change_id, now),
    )
    if updated == memory:
        return memory
    return replace(
        updated, updated_at=now, revision=memory.revision + 1, mentions=_mentions(updated, memory)
    )


def _mentions(updated: Memory, memory: Memory) -> Mentions | None:
    """Read again when what they depend on changed (a stored None stays None otherwise:
    `Memory.names` reads it from the body)."""
    if (updated.body, updated.occurred) == (memory.body, memory.occurred):
        return memory.mentions
    return mentions_of(updated.body, updated.occurred)


def _curated(
    memory: Memory, changes: MemoryChanges, by: str, change_id: str, now: datetime
) -> Curation:
    state = memory.curation
    flags = _kept_flags(state.flags, changes)
    if changes.add_flag is not None and all(f.id != change_id for f in flags):
        if len(flags) >= MAX_FLAGS:
            raise InvalidInput([FieldProblem("kind", f"at most {MAX_FLAGS} flags per memory")])
        draft = changes.add_flag
        flags += (Flag(change_id, FlagKind(draft.kind), draft.reason, by, now),)
    corrected = changes.body is not None and changes.body != memory.body
    return replace(
        state,
        flags=flags,
        corrections=state.corrections + int(corrected),
        confirmations=state.confirmations + int(changes.confirm),
        last_confirmed_at=now if changes.confirm else state.last_confirmed_at,
        promoted_at=state.promoted_at or (now if changes.promote else None),
    )


def _kept_flags(flags: tuple[Flag, ...], changes: MemoryChanges) -> tuple[Flag, ...]:
    if changes.clear_all_flags:
        return ()
    cleared = set(changes.clear_flag_ids)
    return tuple(f for f in flags if f.id not in cleared)


def _given(value: T | None, current: T) -> T:
    return current if value is None else value


def _importance(importance: float | None, problems: list[FieldProblem]) -> float | None:
    return None if importance is None else check_importance(importance, None, problems)


def _visibility(
    visibility: Visibility | str | None, problems: list[FieldProblem]
) -> Visibility | None:
    return (
        None if visibility is None else parse_enum(Visibility, visibility, "visibility", problems)
    )
