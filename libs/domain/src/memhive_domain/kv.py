"""Key/value memory: small JSON values under a key at one node of the scope tree.

Beside memories (statements recalled by meaning), agents keep structured state a UI shows
or a next session resumes from: a plan's progress, a feature flag, a cursor. An entry lives
at a node (`global`, `product:ios/team:mobile`, ...) under a key, holds one JSON value, and
may expire. Writes are compare-and-set on the entry's revision, so two agents updating
the same key never lose a write silently.

Bounds, and why:
- keys: 1-128 of letters, digits, `.`, `_`, `:`, `-`, starting with a letter or digit
  (no `/`: a key is the last segment of `/v1/kv/{scope}/{key}`);
- values: at most 16 KiB as compact UTF-8 JSON and at most 16 levels of arrays and objects
  (state, not documents: a value is read whole into an agent's context), finite numbers
  only, every string (keys too) valid Unicode;
- ttl_s: 1 s .. 366 days.
Who reads and writes: members and agents where the scope tree lets them (`scope_tree`);
entries carry no visibility of their own, so they are private to the workspace and viewers
(public-only readers) see none.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memhive_domain.errors import DomainError, FieldProblem, InvalidInput
from memhive_domain.scopes import ScopeRef, parse_scope_path
from memhive_domain.text import is_encodable

KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
MAX_VALUE_BYTES = 16 * 1024
MAX_DEPTH = 16
MIN_TTL_S = 1
MAX_TTL_S = 366 * 24 * 3600
MAX_REVISION = 2**53 - 1  # the largest integer every JSON reader keeps exact (RFC 7493)
DEFAULT_PAGE = 20
MAX_PAGE = 100
MAX_CURSOR_CHARS = 40
_CURSOR_PREFIX = "v1."

_KEY_HELP = (
    "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', "
    "starting with a letter or digit"
)


@dataclass(frozen=True, slots=True)
class KvAddress:
    """Where an entry lives: a workspace, a node of its scope tree, a key."""

    workspace_id: str
    node: ScopeRef
    key: str


@dataclass(frozen=True, slots=True)
class KvEntry:
    address: KvAddress
    value_json: str  # compact JSON, as written
    revision: int  # increases with every write of the bucket; never reused
    updated_by: str
    updated_at: datetime
    expires_at: datetime | None = None

    @property
    def value(self) -> Any:
        return json.loads(self.value_json)

    def is_live(self, now: datetime) -> bool:
        return self.expires_at is None or now < self.expires_at


@dataclass(frozen=True, slots=True)
class Precondition:
    """What the entry must be for a write to apply: anything (the default), absent
    (create-only, `If-None-Match: *`), present (`If-Match: *`), or at exactly this revision
    (compare-and-set)."""

    revision: int | None = None
    absent: bool = False
    present: bool = False

    def holds_for(self, current: int | None) -> bool:
        """`current`: the live entry's revision, None when there is none."""
        if self.absent:
            return current is None
        if self.present and current is None:
            return False
        return self.revision is None or self.revision == current


ANYTHING = Precondition()


@dataclass(frozen=True, slots=True)
class KvWrite:
    address: KvAddress
    value_json: str
    precondition: Precondition
    ttl_s: int | None = None
    expires_at: datetime | None = None  # written at + ttl_s


@dataclass(frozen=True, slots=True)
class KvPage:
    entries: list[KvEntry]  # oldest write first
    next_after: int | None  # the revision a next page starts after; None: no more


class RevisionMismatch(DomainError):
    """The entry is not what the precondition asked for (409): `current` is its revision
    now, None when it does not exist."""

    def __init__(self, address: KvAddress, current: int | None, precondition: Precondition):
        self.address, self.current = address, current
        wanted = (
            "to be absent"
            if precondition.absent
            else f"at revision {precondition.revision}"
            if precondition.revision is not None
            else "to exist"
        )
        now = "does not exist" if current is None else f"is at revision {current}"
        super().__init__(f"key {address.key!r} at {address.node.key!r} {now}; expected it {wanted}")


def parse_node(
    scope: object, problems: list[FieldProblem], field: str = "scope"
) -> ScopeRef | None:
    # As sent, untrimmed: it is a path segment of the URL, stated by a pattern.
    if not isinstance(scope, str) or not is_encodable(scope) or scope != scope.strip():
        problems.append(FieldProblem(field, "must be a node of the scope tree, e.g. 'global'"))
        return None
    return parse_scope_path(scope, problems, field)


def checked_key(key: object, problems: list[FieldProblem], field: str = "key") -> str:
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):  # no trailing newline
        problems.append(FieldProblem(field, _KEY_HELP))
        return ""
    return key


def address_of(workspace_id: str, scope: object, key: object) -> KvAddress:
    """The entry's address, or InvalidInput naming `scope` and/or `key`."""
    problems: list[FieldProblem] = []
    node = parse_node(scope, problems)
    checked = checked_key(key, problems)
    if problems or node is None:
        raise InvalidInput(problems)
    return KvAddress(workspace_id, node, checked)


def value_json(value: Any, problems: list[FieldProblem], field: str = "value") -> str:
    """The value as compact JSON, or "" with the problem recorded."""
    if (problem := _shape_problem(value)) is not None:
        problems.append(FieldProblem(field, problem))
        return ""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    size = len(text.encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        problems.append(
            FieldProblem(field, f"is {size} bytes as JSON; the maximum is {MAX_VALUE_BYTES}")
        )
        return ""
    return text


def _shape_problem(value: Any) -> str | None:
    """Walks the value without recursion (its depth is what is being checked)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                return f"nests deeper than {MAX_DEPTH} levels of arrays and objects"
            if isinstance(item, dict):
                if not all(isinstance(k, str) and is_encodable(k) for k in item):
                    return "has an object key that is not valid Unicode"
                pending += [(v, depth + 1) for v in item.values()]
            else:
                pending += [(v, depth + 1) for v in item]
        elif (problem := _scalar_problem(item)) is not None:
            return problem
    return None


def _scalar_problem(item: Any) -> str | None:
    if item is None or isinstance(item, bool | int):
        return None
    if isinstance(item, float):
        return None if math.isfinite(item) else "holds a number that is not finite"
    if isinstance(item, str):
        return None if is_encodable(item) else "holds text that is not valid Unicode"
    return f"holds a {type(item).__name__}, which is not JSON"


def checked_ttl(ttl_s: object, problems: list[FieldProblem]) -> int | None:
    if ttl_s is None:
        return None
    if isinstance(ttl_s, bool) or not isinstance(ttl_s, int) or not MIN_TTL_S <= ttl_s <= MAX_TTL_S:
        problems.append(FieldProblem("ttl_s", f"must be whole seconds, {MIN_TTL_S}..{MAX_TTL_S}"))
        return None
    return ttl_s


def checked_revision(revision: object, problems: list[FieldProblem], field: str) -> int | None:
    if revision is None:
        return None
    if isinstance(revision, bool) or not isinstance(revision, int):
        problems.append(FieldProblem(field, "must be a revision this API returned"))
        return None
    if not 1 <= revision <= MAX_REVISION:
        problems.append(FieldProblem(field, "must be a revision this API returned"))
        return None
    return revision


def parse_if_match(header: str | None, problems: list[FieldProblem]) -> int | None:
    """An If-Match header naming one revision, bare or as the ETag this API sends ("12")
    (`*` is decided by the caller: any entry)."""
    if header is None:
        return None
    text = header.strip().removeprefix("W/").strip('"')
    if not text.isascii() or not text.isdigit() or len(text) > 16:
        problems.append(FieldProblem("If-Match", 'must be one revision, e.g. "12", or *'))
        return None
    return checked_revision(int(text), problems, "If-Match")


def precondition_of(
    revision: int | None, if_match: int | None, create_only: bool, problems: list[FieldProblem]
) -> Precondition:
    """The body's `revision`, the If-Match header and create-only (`If-None-Match: *`)
    must not disagree."""
    if revision is not None and if_match is not None and revision != if_match:
        problems.append(FieldProblem("revision", "differs from the If-Match header"))
    expected = revision if revision is not None else if_match
    if create_only and expected is not None:
        problems.append(FieldProblem("create_only", "cannot be combined with a revision"))
    return Precondition(revision=expected, absent=create_only)


def plan_write(
    address: KvAddress,
    value: Any,
    *,
    ttl_s: object,
    precondition: Precondition,
    now: datetime,
) -> KvWrite:
    problems: list[FieldProblem] = []
    text, ttl, expires_at = _value_and_expiry(value, ttl_s, now, problems)
    if problems:
        raise InvalidInput(problems)
    return KvWrite(address, text, precondition, ttl, expires_at)


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """A write as a caller asks for it, before any rule has been checked."""

    scope: object
    key: object
    value: Any
    ttl_s: object = None
    revision: object = None  # compare-and-set on this revision
    if_match: str | None = None  # the same, as the If-Match header
    create_only: bool = False  # If-None-Match: *


def plan_kv_write(workspace_id: str, request: WriteRequest, now: datetime) -> KvWrite:
    """Every problem of the request at once (InvalidInput), else the write to make."""
    problems: list[FieldProblem] = []
    node = parse_node(request.scope, problems)
    key = checked_key(request.key, problems)
    precondition = _precondition(request, problems)
    text, ttl, expires_at = _value_and_expiry(request.value, request.ttl_s, now, problems)
    if problems or node is None:
        raise InvalidInput(problems)
    return KvWrite(KvAddress(workspace_id, node, key), text, precondition, ttl, expires_at)


def plan_kv_delete(
    workspace_id: str, scope: object, key: object, revision: object, if_match: str | None
) -> tuple[KvAddress, Precondition]:
    problems: list[FieldProblem] = []
    node = parse_node(scope, problems)
    checked = checked_key(key, problems)
    request = WriteRequest(scope, key, None, revision=revision, if_match=if_match)
    precondition = _precondition(request, problems)
    if problems or node is None:
        raise InvalidInput(problems)
    return KvAddress(workspace_id, node, checked), precondition


def _precondition(request: WriteRequest, problems: list[FieldProblem]) -> Precondition:
    revision = checked_revision(request.revision, problems, "revision")
    if request.if_match is not None and request.if_match.strip() == "*":  # any entry at all
        if request.create_only:
            problems.append(FieldProblem("create_only", "cannot be combined with If-Match"))
        return Precondition(revision=revision, present=True)
    if_match = parse_if_match(request.if_match, problems)
    return precondition_of(revision, if_match, request.create_only, problems)


def _value_and_expiry(
    value: Any, ttl_s: object, now: datetime, problems: list[FieldProblem]
) -> tuple[str, int | None, datetime | None]:
    text = value_json(value, problems)
    ttl = checked_ttl(ttl_s, problems)
    return text, ttl, None if ttl is None else now + timedelta(seconds=ttl)


def page_limit(limit: object, problems: list[FieldProblem]) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        problems.append(FieldProblem("limit", f"must be 1..{MAX_PAGE}"))
        return DEFAULT_PAGE
    return limit


def encode_list_cursor(after: int) -> str:
    return _CURSOR_PREFIX + base64.urlsafe_b64encode(str(after).encode()).decode().rstrip("=")


def decode_list_cursor(cursor: str | None, problems: list[FieldProblem]) -> int | None:
    """None for no cursor; a problem naming `cursor` for anything this API did not issue."""
    if not cursor:
        return None
    try:
        if not cursor.startswith(_CURSOR_PREFIX) or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError(cursor)
        raw = cursor.removeprefix(_CURSOR_PREFIX)
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("ascii")
        if not text.isdigit() or not 1 <= int(text) <= MAX_REVISION:
            raise ValueError(cursor)
        return int(text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        problems.append(FieldProblem("cursor", "is not a cursor this API returned"))
        return None
