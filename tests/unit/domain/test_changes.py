"""Changing a memory: each field checked like a save, a change is one revision, a body change
is a correction, flags are added once per command and can be cleared."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memhive_domain.changes import MemoryChanges, apply_changes, checked_changes
from memhive_domain.curation import MAX_FLAGS, FlagDraft, FlagKind
from memhive_domain.errors import InvalidInput
from memhive_domain.mentions import mentions_of
from memhive_domain.scopes import Visibility

from tests.unit.query.memories import NOW, memory


def changed(changes: MemoryChanges, n: int = 1, change_id: str = "c1"):
    base = memory(n)
    return apply_changes(base, checked_changes(changes, NOW), by="u1", change_id=change_id, now=NOW)


def test_every_field_changes_in_one_revision_and_a_new_body_counts_as_a_correction() -> None:
    later = NOW + timedelta(days=3)
    updated = changed(
        MemoryChanges(
            body="  The deploy runs at 9  ",
            importance=0.9,
            tags=["Ops", "ops", "deploy"],
            pinned=True,
            visibility="public",
            expires_at=later,
        )
    )
    assert updated.body == "The deploy runs at 9"
    assert (updated.importance, updated.tags, updated.pinned) == (0.9, ("ops", "deploy"), True)
    assert (updated.visibility, updated.expires_at) == (Visibility.PUBLIC, later)
    assert (updated.revision, updated.updated_at, updated.curation.corrections) == (2, NOW, 1)


def test_the_same_values_again_are_no_change() -> None:
    base = memory(1)
    same = MemoryChanges(body=base.body, importance=base.importance, pinned=base.pinned)
    assert apply_changes(base, checked_changes(same, NOW), by="u", change_id="c", now=NOW) is base


def test_every_problem_is_reported_at_once() -> None:
    bad = MemoryChanges(
        body="\u200b",
        importance=2.0,
        tags=["Not OK!"],
        visibility="secret",
        expires_at=NOW - timedelta(seconds=1),
        add_flag=FlagDraft("maybe", ""),
    )
    with pytest.raises(InvalidInput) as refused:
        checked_changes(bad, NOW)
    fields = {p.field for p in refused.value.problems}
    assert fields == {"body", "importance", "tags", "visibility", "expires_at", "kind", "reason"}


def test_an_empty_change_and_a_contradictory_expiry_are_refused() -> None:
    for changes in (
        MemoryChanges(),
        MemoryChanges(expires_at=NOW + timedelta(days=1), clear_expiry=True),
    ):
        with pytest.raises(InvalidInput):
            checked_changes(changes, NOW)


def test_a_flag_is_added_once_per_command_and_can_be_cleared() -> None:
    flag = MemoryChanges(add_flag=FlagDraft("outdated", "moved to 10 am"))
    flagged = changed(flag)
    (added,) = flagged.curation.flags
    assert (added.id, added.kind, added.reason, added.flagged_by) == (
        "c1",
        FlagKind.OUTDATED,
        "moved to 10 am",
        "u1",
    )
    again = apply_changes(flagged, checked_changes(flag, NOW), by="u1", change_id="c1", now=NOW)
    assert again is flagged  # a replayed command adds nothing
    cleared = apply_changes(
        flagged, MemoryChanges(clear_flag_ids=("c1",)), by="u1", change_id="c2", now=NOW
    )
    assert (cleared.curation.flags, cleared.revision) == ((), 3)


def test_flags_are_bounded() -> None:
    current = memory(1)
    flag = checked_changes(MemoryChanges(add_flag=FlagDraft("wrong", "no")), NOW)
    for n in range(MAX_FLAGS):
        current = apply_changes(current, flag, by="u", change_id=f"c{n}", now=NOW)
    with pytest.raises(InvalidInput):
        apply_changes(current, flag, by="u", change_id="one-more", now=NOW)


def test_confirmations_count_and_promotion_is_kept_once() -> None:
    confirmed = changed(MemoryChanges(confirm=True, promote=True))
    state = confirmed.curation
    assert (state.confirmations, state.last_confirmed_at, state.promoted_at) == (1, NOW, NOW)
    later = NOW + timedelta(days=1)
    again = apply_changes(
        confirmed, MemoryChanges(confirm=True, promote=True), by="u", change_id="c2", now=later
    )
    assert (again.curation.confirmations, again.curation.promoted_at) == (2, NOW)


def test_a_new_body_or_time_is_read_again_for_what_it_names() -> None:
    base = memory(
        1, body="Ann: the deploy failed.", mentions=mentions_of("Ann: the deploy failed.", NOW)
    )
    rewritten = apply_changes(
        base,
        checked_changes(MemoryChanges(body="Ben: it failed yesterday."), NOW),
        by="u1",
        change_id="c1",
        now=NOW,
    )
    assert rewritten.mentions is not None
    assert (rewritten.mentions.speaker, rewritten.mentions.dated) == ("Ben", True)

    moved = apply_changes(
        rewritten,
        checked_changes(MemoryChanges(occurred_at=NOW - timedelta(days=30)), NOW),
        by="u1",
        change_id="c2",
        now=NOW,
    )
    assert moved.mentions == mentions_of("Ben: it failed yesterday.", NOW - timedelta(days=30))


def test_a_record_kept_before_mentions_is_no_change_when_nothing_differs() -> None:
    base = memory(1)  # written before mentions were kept: none stored
    same = MemoryChanges(body=base.body, importance=base.importance)

    assert apply_changes(base, checked_changes(same, NOW), by="u", change_id="c", now=NOW) is base
    flagged = apply_changes(
        base, checked_changes(MemoryChanges(confirm=True), NOW), by="u", change_id="c", now=NOW
    )
    assert flagged.mentions is None
    assert flagged.names == mentions_of(base.body, base.occurred)  # read from the body instead
