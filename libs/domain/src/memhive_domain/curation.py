"""What readers have said about a memory since it was saved: flags, confirmations, corrections,
promotion to a skill. These are the inputs of its trust score (`trust.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memhive_domain.errors import FieldProblem
from memhive_domain.principals import Principal, Role
from memhive_domain.sources import Source
from memhive_domain.text import checked_text

MAX_FLAGS = 32  # per memory: a flag beyond this is refused, so a record cannot grow unbounded
MAX_FLAG_REASON_CHARS = 500


class FlagKind(StrEnum):
    WRONG = "wrong"  # the memory states something false
    OUTDATED = "outdated"  # it was true once
    UNVERIFIED = "unverified"  # nobody has checked it


class AuthorKind(StrEnum):
    USER = "user"  # a person's token (admin or member)
    AGENT = "agent"  # an agent's token
    UPSTREAM = "upstream"  # an upstream system (issue tracker, jobs, knowledge base)


@dataclass(frozen=True, slots=True)
class Flag:
    id: str
    kind: FlagKind
    reason: str
    flagged_by: str
    flagged_at: datetime


@dataclass(frozen=True, slots=True)
class Curation:
    flags: tuple[Flag, ...] = ()
    confirmations: int = 0  # an agent reported that the recalled memory worked / held
    last_confirmed_at: datetime | None = None
    corrections: int = 0  # body changes since creation
    promoted_at: datetime | None = None  # crystallized into a skill
    author_kind: AuthorKind | None = None  # None: recorded before authors were kept


@dataclass(frozen=True, slots=True)
class FlagDraft:
    kind: FlagKind | str
    reason: str


def author_kind_of(principal: Principal, source: Source) -> AuthorKind:
    if source is not Source.AGENT:
        return AuthorKind.UPSTREAM
    return AuthorKind.AGENT if principal.role is Role.AGENT else AuthorKind.USER


def author_kind(curation: Curation, source: Source) -> AuthorKind:
    """The recorded author kind; older records: upstream by source, else an agent (the
    least trusted writer, so an unknown author is never over-trusted)."""
    if curation.author_kind is not None:
        return curation.author_kind
    return AuthorKind.AGENT if source is Source.AGENT else AuthorKind.UPSTREAM


def check_flag(draft: FlagDraft, problems: list[FieldProblem]) -> FlagDraft:
    """A flag needs a known kind and a reason a reader can act on (1..500 characters)."""
    kind = draft.kind
    try:
        kind = FlagKind(draft.kind)
    except ValueError:
        allowed = ", ".join(repr(k.value) for k in FlagKind)
        problems.append(
            FieldProblem("kind", f"unknown value {draft.kind!r}; expected one of {allowed}")
        )
    reason = checked_text("reason", draft.reason, MAX_FLAG_REASON_CHARS, problems, required=True)
    return FlagDraft(kind, reason)
