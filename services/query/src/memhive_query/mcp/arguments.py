"""Argument types the tools share: one description and one constraint per concept.

Enums are spelled as `Literal`s built from the domain's enums (the REST request types'
own), so the JSON schema lists the allowed values inline (agents read them) and stays in
step with the domain.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from memhive_domain.kv import KEY_PATTERN, MAX_REVISION
from memhive_domain.memory import MAX_BODY_CHARS, MAX_SOURCE_REF_CHARS, MAX_TAGS
from pydantic import BeforeValidator, Field

from memhive_query.request_types import KindName, ScopeName, VisibilityName

KIND_HELP = (
    "fact: something true about the world or the project; preference: how someone likes "
    "things done; decision: a choice that was made and should be respected; identity: who "
    "someone or something is; event: something that happened; observation: something "
    "noticed, less certain; goal: something to achieve; todo: something still to do; "
    "procedure: how to do something."
)

MemoryId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        description="The memory's id, as returned by save_memory, recall_memory or list_memories.",
    ),
]
Kind = Annotated[KindName, Field(description=f"What sort of memory this is. {KIND_HELP}")]
OptionalScope = Annotated[
    ScopeName | None,
    Field(
        description="'global' (the whole workspace) or 'product' (one product, named by "
        "product_id). Omitted: 'product' if product_id is given, else 'global'."
    ),
]
ScopePath = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=300,
        description="A node of the workspace's scope tree instead of scope/product_id: "
        "'global', 'product:<id>', optionally '/team:<id>' and '/agent:<id>' (an agent's "
        "private memory), e.g. 'product:ios/team:mobile'.",
    ),
]
ProductId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=128,
        description="The product this concerns, e.g. 'ios-app'; required with scope 'product', "
        "omitted with scope 'global'.",
    ),
]
Body = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_BODY_CHARS,
        description="The memory itself: one self-contained statement another agent can "
        "understand later without this conversation, e.g. 'The iOS app targets Swift 6'.",
    ),
]
Tags = Annotated[
    list[str] | None,
    Field(
        max_length=MAX_TAGS,
        description="Short lowercase labels for filtering, e.g. ['build', 'ci'] "
        "(letters, digits, '.', '_', ':', '/', '-').",
    ),
]


def _not_true_or_false(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


def number_in(kind: type[int] | type[float], ge: float, le: float) -> Any:
    """A number in [ge, le], read as the MCP SDK reads arguments, leniently ("30" is 30),
    but never from true or false: pydantic would take them for 1 and 0 (`ttl_s: true`, an
    entry gone in a second). The bounds sit inside the type, so that in `... | None` the
    schema still says `minimum`/`maximum`."""
    return Annotated[kind, Field(ge=ge, le=le), BeforeValidator(_not_true_or_false)]


Importance = Annotated[
    number_in(float, 0.0, 1.0) | None,
    Field(description="How much this matters, 0..1. Omitted: a default for the kind."),
]
Visibility_ = Annotated[
    VisibilityName | None,
    Field(
        description="'private' (members of the workspace only) or 'public' (also readable "
        "by non-member tokens). Omitted: global memories are public, a product's take the "
        "product's visibility, team and agent memories are private."
    ),
]
SourceRef = Annotated[
    str | None,
    Field(
        max_length=MAX_SOURCE_REF_CHARS,
        description="Where this came from, e.g. a URL, a file path or an issue reference.",
    ),
]

StateScope = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        description="The node of the scope tree the state belongs to: 'global', "
        "'product:<id>', optionally '/team:<id>' and '/agent:<id>' (an agent's private "
        "state), e.g. 'product:ios/team:mobile'.",
    ),
]
StateKey = Annotated[
    str,
    Field(
        pattern=KEY_PATTERN.pattern,
        description="The key: 1-128 letters, digits, '.', '_', ':' or '-', e.g. "
        "'release:plan' or 'ui.theme'.",
    ),
]
Revision = Annotated[
    number_in(int, 1, MAX_REVISION) | None,
    Field(
        description="Only if the entry is still at this revision (as get_state or set_state "
        "returned it); otherwise a conflict and nothing changes.",
    ),
]


OccurredAt = Annotated[
    datetime | None,
    Field(
        description="When the remembered thing happened, ISO 8601 (e.g. a meeting's date), "
        "if not now. Omitted: when it is saved."
    ),
]
HappenedAfter = Annotated[
    datetime | None,
    Field(
        description="Only what happened at or after this time, ISO 8601 (its occurred_at, "
        "else when it was saved), e.g. for 'what happened last week'."
    ),
]
HappenedBefore = Annotated[
    datetime | None, Field(description="Only what happened before this time, ISO 8601.")
]
SavedAfter = Annotated[
    datetime | None, Field(description="Only memories saved at or after this time, ISO 8601.")
]
SavedBefore = Annotated[
    datetime | None, Field(description="Only memories saved before this time, ISO 8601.")
]


def present(**fields: Any) -> dict[str, Any]:
    """The fields the agent gave: absent ones are left to memhive's defaults; times as the
    REST API reads them (ISO 8601)."""
    return {
        name: value.isoformat() if isinstance(value, datetime) else value
        for name, value in fields.items()
        if value is not None
    }
