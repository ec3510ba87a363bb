"""Revision history keeps one entry per revision, oldest first, whatever the log repeated."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.revisions import Revision, revision_history
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source

T0 = datetime(2025, 3, 1, tzinfo=UTC)
BASE = Memory(
    id="m1",
    workspace_id="acme",
    kind=MemoryKind.FACT,
    body="v1",
    importance=0.5,
    pinned=False,
    tags=(),
    scope=Scope.GLOBAL,
    product_id=None,
    visibility=Visibility.PRIVATE,
    source=Source.AGENT,
    source_ref=None,
    created_by="a",
    expires_at=None,
    created_at=T0,
    updated_at=T0,
)


def rev(n: int, event_id: str, change="saved") -> Revision:
    return Revision(replace(BASE, revision=n, body=f"v{n}"), change, event_id, f"cmd-{n}")


def test_repeated_announcements_count_once_and_the_first_wins() -> None:
    history = revision_history([rev(1, "a"), rev(2, "b"), rev(1, "a-again"), rev(2, "b-again")])
    assert [(r.memory.revision, r.event_id) for r in history] == [(1, "a"), (2, "b")]


def test_history_is_ordered_by_revision_not_by_arrival() -> None:
    history = revision_history([rev(3, "c", "forgotten"), rev(1, "a"), rev(2, "b")])
    assert [(r.memory.body, r.change) for r in history] == [
        ("v1", "saved"),
        ("v2", "saved"),
        ("v3", "forgotten"),
    ]


def test_an_empty_log_has_no_history() -> None:
    assert revision_history([]) == []
