"""The request fields' types, from the domain's own rules, so the OpenAPI document states
what the server enforces: enums, patterns, lengths and ranges (issue 24 item 10).

Most are checked here by pydantic before the domain runs (one sentence per field, see
validation_problems.py); the domain checks them again for MCP and the bus. A text that must
hold a visible character carries the domain's pattern in the document only: its lookahead
and Unicode classes are ECMA-262's, which pydantic's regex engine does not read, so
`memhive_domain.text` enforces it (the same rule, tested against the pattern).

What a JSON schema cannot state is said in the descriptions and enforced by the domain:
a time relative to now (an expiry in the future), one field against another (`after` before
`before`, `scope` against `product_id` and `scope_path`), cursors the API issued, ids that
exist. tests/integration/stack/fuzz_runner.py lists them where it keeps schemathesis's
valid cases valid.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from memhive_domain.activity import ActivityKind
from memhive_domain.audit import AuditAction
from memhive_domain.curation import FlagKind
from memhive_domain.edges import EdgeKind
from memhive_domain.kinds import MemoryKind
from memhive_domain.listing import MAX_CURSOR_CHARS
from memhive_domain.principals import USER_ID_PATTERN, Role
from memhive_domain.scopes import (
    PRODUCT_ID_PATTERN,
    SCOPE_PATH_PATTERN,
    Scope,
    Visibility,
)
from memhive_domain.skills import MAX_NAME_CHARS, SKILL_NAME
from memhive_domain.sources import Source
from memhive_domain.text import SPACE_CLASS, VISIBLE_TEXT_PATTERN
from memhive_domain.tokens import DURATION_PATTERN, LIFETIME_PATTERN
from pydantic import BeforeValidator, Field, Strict


def one_of(enum: type[StrEnum]) -> Any:
    """A Literal of the enum's values: the schema lists them inline."""
    return Literal[tuple(member.value for member in enum)]  # type: ignore[valid-type]


KindName = one_of(MemoryKind)
ScopeName = one_of(Scope)
VisibilityName = one_of(Visibility)
SourceName = one_of(Source)
EdgeKindName = one_of(EdgeKind)
FlagKindName = one_of(FlagKind)
RoleName = one_of(Role)
ActivityKindName = one_of(ActivityKind)
AuditActionName = one_of(AuditAction)


# A request body's scalars are read as the OpenAPI document types them, strictly. Pydantic's
# lax mode would take `true` for 1, "30" for 30 and "yes" for true, so a field of the wrong
# JSON type became another value without a word (`"ttl_s": true`: an entry gone in a
# second). So: a boolean is true or false, an integer a JSON number with no fraction (19.0
# is JSON Schema's integer too), a number any JSON number; never a boolean or a string for
# them. (Query parameters come as text and are still parsed from it.)
def _integral_float_as_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


JsonBoolean = Annotated[bool, Strict()]


def json_integer(ge: int, le: int) -> Any:
    """An integer in [ge, le]. The bounds sit inside the type: on a field of `... | None`
    beside a validator, pydantic would write them into the schema as `ge`/`le`, not as
    JSON Schema's `minimum`/`maximum`."""
    return Annotated[int, Field(ge=ge, le=le), Strict(), BeforeValidator(_integral_float_as_int)]


Importance = Annotated[float, Strict(), Field(ge=0.0, le=1.0)]  # also weights and confidences


def visible_text(max_chars: int, description: str) -> Any:
    """A text with something visible in it, at most `max_chars` as sent."""
    return Annotated[
        str,
        Field(
            min_length=1,
            max_length=max_chars,
            description=f"{description}; at most {max_chars} characters, something visible",
            json_schema_extra={"pattern": VISIBLE_TEXT_PATTERN},
        ),
    ]


def optional_text(max_chars: int, description: str) -> Any:
    """A text that may be left blank (only spaces: none), else must show something."""
    return Annotated[
        str,
        Field(
            max_length=max_chars,
            description=f"{description}; at most {max_chars} characters",
            json_schema_extra={"pattern": f"^[{SPACE_CLASS}]*$|{VISIBLE_TEXT_PATTERN}"},
        ),
    ]


def _or_empty(pattern: str) -> str:
    """An anchored pattern that also takes "" (a query or field left empty: none)."""
    return f"^(?:{pattern.removeprefix('^').removesuffix('$')})?$"


_PATH_HELP = (
    "a node of the scope tree: 'global', or product:<id>, team:<id>, agent:<id> segments "
    "in that order, e.g. 'product:ios/team:mobile/agent:bob'"
)
ScopePath = Annotated[str, Field(pattern=SCOPE_PATH_PATTERN, description=_PATH_HELP)]
# A bulletin's {scope}: a node's path, or `product` with product_id (`global` is a path).
BULLETIN_SCOPE_PATTERN = "^(?:product|" + SCOPE_PATH_PATTERN.removeprefix("^")[:-1] + ")$"
OptionalScopePath = Annotated[
    str, Field(pattern=_or_empty(SCOPE_PATH_PATTERN), description=_PATH_HELP + "; empty: none")
]
OptionalProductId = Annotated[
    str, Field(pattern=_or_empty(PRODUCT_ID_PATTERN.pattern), description="a product id")
]
# The domain lowercases tags, so either case is accepted as sent.
Tag = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$")]
UserId = Annotated[str, Field(pattern=USER_ID_PATTERN.pattern)]
# Printable (Python's str.isprintable): no controls, formats, separators but the space.
PrintableText = Annotated[str, Field(pattern=r"^(?:[^\p{C}\p{Z}]| )*$")]
Duration = Annotated[str, Field(pattern=DURATION_PATTERN.pattern, description="e.g. 30d, 12h")]
Lifetime = Annotated[str, Field(pattern=LIFETIME_PATTERN.pattern, description="e.g. 30d, 12h")]
SkillName = Annotated[
    str,
    Field(max_length=MAX_NAME_CHARS, pattern=SKILL_NAME.pattern, description="e.g. deploy-ios"),
]
# Cursors are positions this API issued (anything else is a 422 naming `cursor`).
Cursor = Annotated[str, Field(max_length=MAX_CURSOR_CHARS, description="a next_cursor")]


# "\d+(?:\.\d*)?", not "\d+\.?\d*": with no dot, a run of digits could be split between the
# two every way there is, and 16,000 digits and a letter took 13 s to refuse.
_NUMBER = re.compile(r"\s*[-+]?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*")


def _iso_8601_only(value: Any) -> Any:
    """pydantic reads a number, or a string of one, as seconds since 1970; the document says
    an ISO 8601 date-time, and a client sending 448 meant no such moment."""
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise ValueError("must be an ISO 8601 date-time with its offset, e.g. 2026-01-01T00:00:00Z")
    return value


# A moment a request names: an ISO 8601 date-time (the domain checks its range and offset).
Moment = Annotated[datetime, BeforeValidator(_iso_8601_only)]
