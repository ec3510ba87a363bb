"""A memory as one JSON object of memhive's export, every field of the record included, and
back. Reading back checks the object with the save's own rules (`create_memory`), then keeps
what only a record has (revision, times, curation, access statistics) as it was written."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from memhive_domain.curation import AuthorKind, Curation, Flag, FlagKind
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.ids import is_memory_id
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_domain.text import MAX_ID_CHARS, checked_text
from memhive_domain.time_range import as_utc

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).isoformat().replace("+00:00", "Z")


def memory_record(memory: Memory) -> dict[str, Any]:
    """Every field of the record but the workspace (an export may move to another one)."""
    state = memory.curation
    return {
        "id": memory.id,
        "kind": memory.kind.value,
        "body": memory.body,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "tags": list(memory.tags),
        "scope_path": memory.scope_ref.key,
        "visibility": memory.visibility.value,
        "source": memory.source.value,
        "source_ref": memory.source_ref,
        "created_by": memory.created_by,
        "created_at": iso(memory.created_at),
        "updated_at": iso(memory.updated_at),
        "expires_at": iso(memory.expires_at),
        "occurred_at": iso(memory.occurred_at),
        "revision": memory.revision,
        "access_count": memory.access_count,
        "last_accessed_at": iso(memory.last_accessed_at),
        "forgotten": memory.forgotten,
        "forgotten_at": iso(memory.forgotten_at),
        "curation": {
            "flags": [flag_record(f) for f in state.flags],
            "confirmations": state.confirmations,
            "last_confirmed_at": iso(state.last_confirmed_at),
            "corrections": state.corrections,
            "promoted_at": iso(state.promoted_at),
            "author_kind": state.author_kind.value if state.author_kind else None,
        },
    }


def edge_record(edge: Edge) -> dict[str, Any]:
    return {
        "src_id": edge.src_id,
        "dst_id": edge.dst_id,
        "kind": edge.kind.value,
        "weight": edge.weight,
        "created_by": edge.created_by,
        "creator_kind": edge.creator_kind.value,
        "rationale": edge.rationale,
        "created_at": iso(edge.created_at),
    }


def flag_record(flag: Flag) -> dict[str, Any]:
    return {
        "id": flag.id,
        "kind": flag.kind.value,
        "reason": flag.reason,
        "flagged_by": flag.flagged_by,
        "flagged_at": iso(flag.flagged_at),
    }


def memory_from_record(data: object, workspace_id: str, now: datetime | None) -> Memory:
    """The record an export line describes; raises InvalidInput naming every bad field.

    The body, kind, tags, node and the other fields a save takes pass the save's rules with
    `now` as the moment of the save (so an expiry already past is refused, as a save's is);
    None: as of the record's creation (an earlier revision, whose expiry may have passed)."""
    problems: list[FieldProblem] = []
    if not isinstance(data, dict):
        raise InvalidInput([FieldProblem("memory", "must be a JSON object")])
    reader = _Fields(data, problems)
    now = now or reader.moment("created_at") or EPOCH
    memory_id = reader.memory_id("id")
    author = checked_text(
        "created_by", data.get("created_by"), MAX_ID_CHARS, problems, required=True
    )
    try:
        saved = create_memory(
            _draft(data),
            memory_id=memory_id or "",
            principal=Principal(workspace_id, author or "unknown"),
            now=now,
        )
    except InvalidInput as invalid:
        problems += invalid.problems
        saved = None
    restored = _record_fields(reader, saved)
    if problems or restored is None:
        raise InvalidInput(problems)
    return restored


def _draft(data: dict[str, Any]) -> MemoryDraft:
    return MemoryDraft(
        kind=data.get("kind", ""),
        body=data.get("body", ""),
        importance=data.get("importance"),
        pinned=data.get("pinned", False),  # the domain refuses anything but true or false
        tags=data.get("tags") or (),
        scope_path=data.get("scope_path") or "global",
        visibility=data.get("visibility"),
        source=data.get("source") or "agent",
        source_ref=data.get("source_ref"),
        expires_at=_moment_or_raw(data.get("expires_at")),
        occurred_at=_moment_or_raw(data.get("occurred_at")),
    )


def _record_fields(reader: _Fields, saved: Memory | None) -> Memory | None:
    created_at = reader.moment("created_at", required=True)
    updated_at = reader.moment("updated_at", required=True)
    curation = reader.curation()
    revision = reader.count("revision", minimum=1)
    access_count = reader.count("access_count", minimum=0)
    last_accessed = reader.moment("last_accessed_at")
    if reader.data.get("forgotten"):
        reader.problems.append(FieldProblem("forgotten", "only live memories are imported"))
    if saved is None or created_at is None or updated_at is None or curation is None:
        return None
    return replace(
        saved,
        created_at=created_at,
        updated_at=max(updated_at, created_at),
        revision=revision,
        access_count=access_count,
        last_accessed_at=last_accessed,
        curation=curation,
    )


class _Fields:
    """Reads the record-only fields of one object, appending a problem for each bad one."""

    def __init__(self, data: dict[str, Any], problems: list[FieldProblem]) -> None:
        self.data, self.problems = data, problems

    def memory_id(self, name: str) -> str | None:
        value = self.data.get(name)
        if isinstance(value, str) and is_memory_id(value):
            return value
        self.problems.append(FieldProblem(name, "must be a memory id (a UUID)"))
        return None

    def moment(self, name: str, *, required: bool = False, data: dict | None = None):
        value = (self.data if data is None else data).get(name)
        if value is None:
            if required:
                self.problems.append(FieldProblem(name, "is required (ISO 8601)"))
            return None
        parsed = _moment_or_raw(value)
        if not isinstance(parsed, datetime):
            self.problems.append(FieldProblem(name, f"must be a date and time, got {value!r}"))
            return None
        return as_utc(parsed)

    def count(self, name: str, *, minimum: int, data: dict | None = None) -> int:
        value = (self.data if data is None else data).get(name, minimum)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problems.append(FieldProblem(name, f"must be a whole number >= {minimum}"))
            return minimum
        return value

    def curation(self) -> Curation | None:
        data = self.data.get("curation") or {}
        if not isinstance(data, dict):
            self.problems.append(FieldProblem("curation", "must be a JSON object"))
            return None
        flags = [self.flag(f) for f in data.get("flags") or []]
        author = data.get("author_kind")
        author_kind = None
        if author is not None:
            author_kind = parse_enum(AuthorKind, author, "curation.author_kind", self.problems)
        if any(f is None for f in flags):
            return None
        return Curation(
            flags=tuple(f for f in flags if f is not None),
            confirmations=self.count("confirmations", minimum=0, data=data),
            last_confirmed_at=self.moment("last_confirmed_at", data=data),
            corrections=self.count("corrections", minimum=0, data=data),
            promoted_at=self.moment("promoted_at", data=data),
            author_kind=author_kind,
        )

    def flag(self, data: object) -> Flag | None:
        if not isinstance(data, dict):
            self.problems.append(FieldProblem("curation.flags", "each flag is a JSON object"))
            return None
        kind = parse_enum(FlagKind, data.get("kind"), "curation.flags.kind", self.problems)
        flagged_at = self.moment("flagged_at", required=True, data=data)
        texts = [data.get(k) for k in ("id", "reason", "flagged_by")]
        if kind is None or flagged_at is None or not all(isinstance(t, str) for t in texts):
            self.problems.append(
                FieldProblem(
                    "curation.flags", "a flag needs id, kind, reason, flagged_by and flagged_at"
                )
            )
            return None
        return Flag(texts[0], kind, texts[1], texts[2], flagged_at)


def edge_from_record(data: object) -> Edge:
    """An edge of the export; whether both ends exist is decided when it is imported."""
    problems: list[FieldProblem] = []
    if not isinstance(data, dict):
        raise InvalidInput([FieldProblem("edge", "must be a JSON object")])
    reader = _Fields(data, problems)
    src, dst = reader.memory_id("src_id"), reader.memory_id("dst_id")
    kind = parse_enum(EdgeKind, data.get("kind"), "kind", problems)
    creator_kind = parse_enum(CreatorKind, data.get("creator_kind"), "creator_kind", problems)
    weight = data.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 1:
        problems.append(FieldProblem("weight", "must be a number between 0 and 1"))
    created_by = checked_text(
        "created_by", data.get("created_by"), MAX_ID_CHARS, problems, required=True
    )
    rationale = checked_text("rationale", data.get("rationale"), 500, problems, required=False)
    created_at = reader.moment("created_at", required=True)
    if problems:
        raise InvalidInput(problems)
    assert src and dst and kind and creator_kind and created_at  # narrowed: no problems
    return Edge(src, dst, kind, float(weight), created_by, creator_kind, rationale, created_at)


def _moment_or_raw(value: object) -> object:
    """An ISO 8601 string as a datetime (a trailing Z too); anything else as it is, for the
    domain's checks to name."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value
