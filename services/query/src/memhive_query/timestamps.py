"""How the gateway writes a moment in JSON: ISO 8601 in UTC with a trailing Z."""

from __future__ import annotations

from datetime import datetime
from typing import overload


@overload
def utc_iso(moment: datetime) -> str: ...
@overload
def utc_iso(moment: None) -> None: ...
def utc_iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")
