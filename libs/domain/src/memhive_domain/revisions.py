"""Revision history: every change of a memory's meaning, as the log announced it.

The log may announce one revision more than once (a handler that crashed after its write
re-announces it; a replay past the duplicate window stores it again): the history keeps
the first announcement of each revision number.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memhive_domain.memory import Memory

Change = Literal["saved", "forgotten"]


@dataclass(frozen=True, slots=True)
class Revision:
    """A memory as one change left it, and what made the change."""

    memory: Memory
    change: Change
    event_id: str
    command_id: str  # a gateway command's id, or "upstream:<event id>" for upstream events
    requested_by: str = ""  # who asked for the change (the command's requested_by), if known


def revision_history(changes: Iterable[Revision]) -> list[Revision]:
    """One entry per revision number, oldest first."""
    first: dict[int, Revision] = {}
    for change in changes:
        first.setdefault(change.memory.revision, change)
    return [first[n] for n in sorted(first)]
