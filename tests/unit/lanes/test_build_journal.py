"""A build's journal: writes taken in rounds, each let go once replayed."""

from __future__ import annotations

import sys
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
    """The journal's memory passes to the copy: while a write is applied, the one before it
    is held by nothing of the journal's (as many references as a write never noted)."""
    journal = BuildJournal()
    writes = [a_write(name) for name in "abc"]
    never_noted = [a_write("z")]
    for write in writes:
        journal.note(write, 1)
    alone = sys.getrefcount(never_noted[0])
    assert sys.getrefcount(writes[0]) > alone  # the journal holds it while noted
    before_each: list[int] = []

    def apply(write: qe.UpdateOperation) -> None:
        index = next(i for i, w in enumerate(writes) if w is write)
        if index:
            before_each.append(sys.getrefcount(writes[index - 1]))

    journal.replay_into(apply)
    assert before_each == [alone, alone]
    assert len(journal) == 0
