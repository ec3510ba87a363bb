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


def spilling(tmp_path, in_memory: int) -> tuple[BuildJournal, list[tuple]]:
    """A journal holding `in_memory` points in memory; what it rebuilt from disk, listed."""
    rebuilt: list[tuple] = []

    def rebuild(plain: tuple) -> qe.UpdateOperation:
        rebuilt.append(plain)
        return a_write(*plain[1])

    return BuildJournal(tmp_path / "shard-1.journal", rebuild, in_memory), rebuilt


def test_writes_past_the_bound_go_to_disk_and_come_back_in_order(tmp_path) -> None:
    journal, rebuilt = spilling(tmp_path, in_memory=3)
    writes = [(a_write(name), ("delete", [name])) for name in "abcdef"]
    for write, plain in writes:
        journal.note(write, 1, lambda plain=plain: plain)
    assert len(journal) == 6
    assert [p.name for p in tmp_path.iterdir()] == ["shard-1.journal.0"]

    applied: list[qe.UpdateOperation] = []
    assert journal.take().replay_into(applied.append) == 6
    assert applied[:3] == [w for w, _ in writes[:3]]  # held: the very objects
    assert rebuilt == [p for _, p in writes[3:]]  # spilled: made again, in order
    assert len(applied) == 6 and not any(w is a for w, _ in writes for a in applied[3:])
    assert not list(tmp_path.iterdir())  # the file goes once replayed


def test_once_spilling_every_later_write_is_spilled_until_taken(tmp_path) -> None:
    """A small write after a large one must not jump ahead of it into memory."""
    journal, rebuilt = spilling(tmp_path, in_memory=2)
    journal.note(a_write("a"), 1, lambda: ("delete", ["a"]))
    journal.note(a_write("b", "c"), 2, lambda: ("delete", ["b", "c"]))  # 3 > 2: spilled
    journal.note(a_write("d"), 1, lambda: ("delete", ["d"]))
    taken = journal.take()
    journal.note(a_write("e"), 1, lambda: ("delete", ["e"]))  # a new round: memory again
    taken.replay_into(lambda write: None)
    assert rebuilt == [("delete", ["b", "c"]), ("delete", ["d"])]
    assert journal.take().replay_into(lambda write: None) == 1
    assert rebuilt == [("delete", ["b", "c"]), ("delete", ["d"])]


def test_each_round_spills_to_a_file_of_its_own_and_discard_removes_it(tmp_path) -> None:
    journal, _ = spilling(tmp_path, in_memory=0)
    journal.note(a_write("a"), 1, lambda: ("delete", ["a"]))
    first = journal.take()
    journal.note(a_write("b"), 1, lambda: ("delete", ["b"]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard-1.journal.0", "shard-1.journal.1"]
    first.discard()  # a build abandoned
    journal.discard()
    assert not list(tmp_path.iterdir())


def test_a_journal_without_a_spill_file_holds_everything(tmp_path) -> None:
    journal = BuildJournal(None, None, 0)
    journal.note(a_write("a"), 1, lambda: ("delete", ["a"]))
    journal.note(a_write("b"), 1)
    assert journal.take().replay_into(lambda write: None) == 2
