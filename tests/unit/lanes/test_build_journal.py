"""A build's journal: writes taken in rounds, each let go once replayed."""

from __future__ import annotations

import uuid

import qdrant_edge as qe
from memhive_adapters.vector.build_journal import BuildJournal


def a_write(*ids: str) -> qe.UpdateOperation:
    return qe.UpdateOperation.delete_points([str(uuid.uuid5(uuid.NAMESPACE_OID, i)) for i in ids])


def test_take_hands_over_what_was_noted_and_starts_again_empty() -> None:
    journal = BuildJournal()
    first, second = a_write("a", "b"), a_write("c")
    journal.note(first, 2)
    journal.note(second, 1)
    assert len(journal) == 3

    taken = journal.take()
    later = a_write("d")
    journal.note(later, 1)
    assert (len(taken), len(journal)) == (3, 1)

    applied: list[qe.UpdateOperation] = []
    assert taken.replay_into(applied.append) == 3
    assert applied == [first, second]
    assert journal.take().replay_into(applied.append) == 1
    assert applied == [first, second, later]


def test_replay_lets_each_write_go_once_applied() -> None:
    journal = BuildJournal()
    for name in "abc":
        journal.note(a_write(name), 1)
    left: list[int] = []
    journal.replay_into(lambda _: left.append(len(journal)))
    assert left == [2, 1, 0] and len(journal) == 0
