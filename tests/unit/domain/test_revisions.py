"""Revision history keeps one entry per revision, oldest first, whatever the log repeated."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memhive_domain.revisions import Revision, revision_history

from tests.unit.domain.memory_factory import a_memory

T0 = datetime(2025, 3, 1, tzinfo=UTC)
BASE = a_memory("m1", at=T0, workspace_id="acme", body="v1", created_by="a")


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
