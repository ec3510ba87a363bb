"""Time ranges are half-open, in UTC; a memory happened when its author said, else when saved."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from memhive_domain.changes import MemoryChanges, apply_changes, checked_changes
from memhive_domain.errors import InvalidInput, NotAllowed
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal, Role
from memhive_domain.recall import SelectionRequest, plan_listing
from memhive_domain.selection import is_selected
from memhive_domain.time_range import TimeRange, checked_range

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
MONDAY = datetime(2026, 5, 25, tzinfo=UTC)
WHO = Principal("ws", "agent")


def test_a_range_holds_its_start_but_not_its_end() -> None:
    week = TimeRange(MONDAY, MONDAY + timedelta(days=7))
    assert week.holds(MONDAY) and not week.holds(MONDAY + timedelta(days=7))
    assert TimeRange(before=MONDAY).holds(datetime(1, 1, 1, tzinfo=UTC))


def test_a_range_is_read_in_utc_and_must_not_be_empty() -> None:
    problems: list = []
    paris = timezone(timedelta(hours=2))
    window = checked_range("occurred", datetime(2026, 5, 25, 2, tzinfo=paris), None, problems)
    assert window == TimeRange(datetime(2026, 5, 25, 0, tzinfo=UTC)) and not problems

    assert checked_range("occurred", MONDAY, MONDAY, problems) is None
    assert [p.field for p in problems] == ["occurred_before"]


def test_a_memory_happened_when_it_says_else_when_it_was_saved() -> None:
    said = create_memory(
        MemoryDraft("event", "the release shipped", occurred_at=MONDAY),
        memory_id="m",
        principal=WHO,
        now=NOW,
    )
    unsaid = create_memory(MemoryDraft("fact", "x"), memory_id="n", principal=WHO, now=NOW)
    assert (said.occurred, unsaid.occurred, unsaid.occurred_at) == (MONDAY, NOW, None)


def test_occurred_at_outside_utc_is_refused_naming_it() -> None:
    beyond = datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-12)))
    with pytest.raises(InvalidInput) as refused:
        create_memory(
            MemoryDraft("event", "x", occurred_at=beyond), memory_id="m", principal=WHO, now=NOW
        )
    assert [p.field for p in refused.value.problems] == ["occurred_at"]


def test_a_change_sets_or_clears_when_it_happened() -> None:
    memory = create_memory(MemoryDraft("event", "x"), memory_id="m", principal=WHO, now=NOW)
    moved = apply_changes(
        memory,
        checked_changes(MemoryChanges(occurred_at=MONDAY), NOW),
        by="u",
        change_id="c",
        now=NOW,
    )
    assert (moved.occurred_at, moved.revision) == (MONDAY, 2)
    back = apply_changes(
        moved, MemoryChanges(clear_occurred_at=True), by="u", change_id="d", now=NOW
    )
    assert back.occurred_at is None and back.occurred == NOW
    with pytest.raises(InvalidInput):
        checked_changes(MemoryChanges(occurred_at=MONDAY, clear_occurred_at=True), NOW)


def test_the_record_side_check_applies_both_ranges() -> None:
    memory = create_memory(
        MemoryDraft("event", "x", occurred_at=MONDAY), memory_id="m", principal=WHO, now=NOW
    )

    def chosen(**ends) -> bool:
        return is_selected(
            memory, plan_listing(SelectionRequest(**ends), principal=WHO, now=NOW), NOW
        )

    assert chosen(occurred_after=MONDAY) and not chosen(occurred_before=MONDAY)
    assert chosen(created_after=NOW) and not chosen(created_before=NOW)
    assert not chosen(occurred_after=MONDAY, created_before=MONDAY)


def test_expired_memories_are_shown_to_members_who_ask_and_to_nobody_else() -> None:
    memory = create_memory(
        MemoryDraft("todo", "x", expires_at=NOW + timedelta(hours=1)),
        memory_id="m",
        principal=WHO,
        now=NOW,
    )
    later = NOW + timedelta(days=1)
    audit = plan_listing(SelectionRequest(include_expired=True), principal=WHO, now=later)
    usual = plan_listing(SelectionRequest(), principal=WHO, now=later)
    assert is_selected(memory, audit, later) and not is_selected(memory, usual, later)
    assert not is_selected(replace(memory, forgotten=True), audit, later)
    viewer = Principal("ws", "guest", Role.VIEWER)
    with pytest.raises(NotAllowed):
        plan_listing(SelectionRequest(include_expired=True), principal=viewer, now=later)


def test_ranges_overlap_when_a_moment_lies_in_both() -> None:
    may = TimeRange(datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC))
    june = TimeRange(datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC))
    mid_may_on = TimeRange(datetime(2023, 5, 15, tzinfo=UTC), None)

    assert not may.overlaps(june) and not june.overlaps(may)  # touching ends only
    assert may.overlaps(mid_may_on) and june.overlaps(mid_may_on)
    assert TimeRange().overlaps(may)


def test_a_new_memory_keeps_what_it_names_counted_from_when_it_happened() -> None:
    said_on = datetime(2023, 5, 8, tzinfo=UTC)
    memory = create_memory(
        MemoryDraft(kind="event", body="Caroline: I went yesterday.", occurred_at=said_on),
        memory_id="m1",
        principal=Principal("ws", "u1", Role.MEMBER),
        now=datetime(2026, 1, 1, tzinfo=UTC),
    )

    assert memory.mentions is not None
    assert memory.mentions.speaker == "Caroline"
    assert memory.mentions.times == (TimeRange(said_on - timedelta(days=1), said_on),)
