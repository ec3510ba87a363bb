"""Bearer tokens for agents and hooks: their shape, their metadata and their lifetime.

A token reads `mh_<id>_<secret>`: the prefix lets secret scanners recognise a leaked one,
the id names the token in listings and revocations without revealing it, and a token
never starts with `-` (it is passed on command lines). Only the secret's digest is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import (
    ROOT_HOME,
    Principal,
    Role,
    is_valid_user_id,
    is_valid_workspace_id,
)
from memhive_domain.scopes import is_valid_scope_path

TOKEN_PREFIX = "mh_"
TOKEN_ID_PATTERN = re.compile(r"^[0-9a-f]{16}$")
# Tokens issued before ids existed (and explicit dev tokens) are named by their digest.
LEGACY_ID_PATTERN = re.compile(r"^[0-9a-f]{64}$")
NAME_MAX = 80
MAX_LIFETIME = timedelta(days=3660)
MAX_GRACE = timedelta(days=30)
# ASCII digits (as JSON Schema's), no leading zero; a lifetime is at least one unit.
DURATION_PATTERN = re.compile(r"^(0|[1-9][0-9]{0,5})([smhdw])$")
LIFETIME_PATTERN = re.compile(r"^([1-9][0-9]{0,5})([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What the directory keeps about a token (never the token itself)."""

    id: str
    workspace_id: str
    user_id: str
    role: Role
    name: str = ""
    home: str = ROOT_HOME
    acting_for: str | None = None
    created_at: datetime | None = None
    created_by: str | None = None
    expires_at: datetime | None = None
    rotated_at: datetime | None = None

    def principal(self) -> Principal:
        return Principal(
            self.workspace_id,
            self.user_id,
            self.role,
            self.home,
            self.acting_for,
            credential=f"token:{self.id}",
        )

    def live_at(self, now: datetime) -> bool:
        return self.expires_at is None or now < self.expires_at

    def expiring(self, at: datetime) -> TokenRecord:
        """The same token, dead from `at` on (or earlier, if it already expires sooner)."""
        if self.expires_at is not None and self.expires_at <= at:
            return self
        return replace(self, expires_at=at)


@dataclass(frozen=True, slots=True)
class TokenDraft:
    workspace_id: str
    user_id: str
    role: Role = Role.MEMBER
    name: str = ""
    home: str = ROOT_HOME
    acting_for: str | None = None
    expires_at: datetime | None = None

    def record(self, token_id: str, created_by: str, now: datetime) -> TokenRecord:
        problems = self.problems(now)
        if problems:
            raise InvalidInput(problems)
        return TokenRecord(
            id=token_id,
            workspace_id=self.workspace_id,
            user_id=self.user_id,
            role=self.role,
            name=self.name,
            home=self.home,
            acting_for=self.acting_for,
            created_at=now,
            created_by=created_by,
            expires_at=self.expires_at,
        )

    def problems(self, now: datetime) -> list[FieldProblem]:
        problems = []
        if not is_valid_workspace_id(self.workspace_id):
            problems.append(FieldProblem("workspace", "1-64 of a-z 0-9 _ -, starting a-z 0-9"))
        if not is_valid_user_id(self.user_id):
            problems.append(FieldProblem("user", "1-128 of letters, digits . _ @ : -"))
        if len(self.name) > NAME_MAX or not self.name.isprintable():
            problems.append(FieldProblem("name", f"at most {NAME_MAX} printable characters"))
        if not is_valid_scope_path(self.home):
            problems.append(
                FieldProblem("home", "a scope-tree path, e.g. global or product:ios/team:mobile")
            )
        if self.acting_for is not None and not is_valid_user_id(self.acting_for):
            problems.append(FieldProblem("acting_for", "a user id"))
        if self.expires_at is not None and self.expires_at.tzinfo is None:
            problems.append(FieldProblem("expires_at", "needs a time zone (e.g. Z)"))
        elif self.expires_at is not None and not now < self.expires_at <= now + MAX_LIFETIME:
            problems.append(FieldProblem("expires_at", "must be in the future, within 10 years"))
        return problems


def format_token(token_id: str, secret: str) -> str:
    return f"{TOKEN_PREFIX}{token_id}_{secret}"


def parse_token(token: str) -> tuple[str, str] | None:
    """(id, secret) of a memhive token; None for anything else (e.g. a legacy token)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    token_id, sep, secret = token[len(TOKEN_PREFIX) :].partition("_")
    if not sep or not secret or not TOKEN_ID_PATTERN.match(token_id):
        return None
    return token_id, secret


def is_token_id(value: str) -> bool:
    return bool(TOKEN_ID_PATTERN.match(value) or LEGACY_ID_PATTERN.match(value))


def parse_duration(value: str, field: str = "expires_in") -> timedelta:
    """ "30d", "12h", "45m", "90s", "2w"."""
    match = DURATION_PATTERN.match(value.strip())
    if not match:
        raise InvalidInput([FieldProblem(field, "a duration like 30d, 12h, 45m, 90s or 2w")])
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


def expiry(
    now: datetime, expires_in: str | None = None, expires_at: datetime | None = None
) -> datetime | None:
    if expires_in is not None and expires_at is not None:
        raise InvalidInput([FieldProblem("expires_in", "give expires_in or expires_at, not both")])
    if expires_in is not None:
        lifetime = parse_duration(expires_in)
        if not timedelta(0) < lifetime <= MAX_LIFETIME:  # "999999w" would overflow the date
            raise InvalidInput([FieldProblem("expires_in", "more than 0, at most 10 years")])
        return now + lifetime
    return expires_at


def grace_period(value: str | None) -> timedelta:
    """How long a rotated token's old secret keeps working (none by default)."""
    if value is None:
        return timedelta(0)
    grace = parse_duration(value, "grace")
    if grace > MAX_GRACE:
        raise InvalidInput([FieldProblem("grace", "at most 30d")])
    return grace
