"""SaveMemory in ingest over fakes: a first delivery is one write and no read; a
redelivery, an identical save that lost the race for its content id, and a reused id are
each told apart only once the write finds the id taken."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_domain.curation import AuthorKind, Curation, Flag, FlagKind
from memhive_ingest.save_memory import SaveMemoryHandler
from memhive_ports.poison import Poison

from tests.fakes import FakePublisher, FakeStore
from tests.unit.domain.memory_factory import a_memory
from tests.unit.query.memories import NOW, mid

BODY = "Release trains leave every other Tuesday"


def save(command_id: str, body: str = BODY, *, seconds: int = 0) -> commands_pb2.SaveMemory:
    return commands_pb2.SaveMemory(
        command_id=command_id,
        memory=pb.Memory(id=mid(1), kind=pb.MEMORY_KIND_FACT, body=body),
        requested_by="u1",
        requested_at=to_timestamp(NOW.replace(second=seconds)),
    )


async def test_a_first_delivery_writes_once_and_reads_nothing() -> None:
    store, publisher = FakeStore(), FakePublisher()
    await SaveMemoryHandler(store, publisher)("ws", save("c1"))
    stored = await store.get("ws", mid(1))
    assert (stored.memory.body, stored.last_command_id) == (BODY, "c1")
    assert store.gets == [mid(1)]  # only the test's own read
    assert [msg_id for _, _, msg_id in publisher.sent] == ["c1:saved"]


async def test_a_redelivery_announces_again_without_a_second_write() -> None:
    store, publisher = FakeStore(), FakePublisher()
    handler = SaveMemoryHandler(store, publisher)
    await handler("ws", save("c1"))
    await handler("ws", save("c1"))
    assert (await store.get("ws", mid(1))).revision == 1
    assert [msg_id for _, _, msg_id in publisher.sent] == ["c1:saved", "c1:saved"]


async def test_an_identical_save_that_lost_the_race_is_not_announced() -> None:
    store, publisher = FakeStore(), FakePublisher()
    handler = SaveMemoryHandler(store, publisher)
    await handler("ws", save("c1"))
    await handler("ws", save("c2", seconds=5))  # another gateway's save of the same body
    assert (await store.get("ws", mid(1))).last_command_id == "c1"
    assert [msg_id for _, _, msg_id in publisher.sent] == ["c1:saved"]


async def test_another_body_under_a_taken_id_is_poison() -> None:
    store, publisher = FakeStore(), FakePublisher()
    handler = SaveMemoryHandler(store, publisher)
    await handler("ws", save("c1"))
    with pytest.raises(Poison, match="already exists"):
        await handler("ws", save("c2", "Something else entirely", seconds=5))
    assert (await store.get("ws", mid(1))).memory.body == BODY


async def test_a_save_without_requested_at_is_poison_and_writes_nothing() -> None:
    store = FakeStore()
    command = save("c1")
    command.ClearField("requested_at")
    with pytest.raises(Poison, match="requested_at"):
        await SaveMemoryHandler(store, FakePublisher())("ws", command)
    assert store.rows == {}


def restore(command_id: str, memory) -> commands_pb2.SaveMemory:
    return commands_pb2.SaveMemory(
        command_id=command_id,
        memory=memory_to_pb(memory),
        requested_by="importer",
        requested_at=to_timestamp(NOW),
        restore=True,
    )


async def test_a_restore_keeps_what_only_a_record_has() -> None:
    flag = Flag("f1", FlagKind.OUTDATED, "moved", "ann", NOW - timedelta(days=2))
    exported = replace(
        a_memory(mid(2), at=NOW - timedelta(days=30), created_by="ann"),
        updated_at=NOW - timedelta(days=2),
        revision=5,
        access_count=9,
        last_accessed_at=NOW - timedelta(days=1),
        curation=Curation((flag,), 3, NOW - timedelta(days=3), 1, None, AuthorKind.USER),
    )
    store, publisher = FakeStore(), FakePublisher()
    handler = SaveMemoryHandler(store, publisher)
    await handler("ws", restore("r1", exported))
    await handler("ws", restore("r1", exported))  # a redelivery
    stored = await store.get("ws", mid(2))
    assert replace(stored.memory, workspace_id="ws") == replace(exported, workspace_id="ws")
    assert [msg_id for _, _, msg_id in publisher.sent] == ["r1:saved", "r1:saved"]


async def test_a_restore_announces_its_earlier_revisions_for_the_history() -> None:
    first = a_memory(mid(4), at=NOW - timedelta(days=9), body="The backup runs at 02:00")
    now = replace(first, body="The backup runs at 03:00", revision=2, updated_at=NOW)
    command = restore("r3", now)
    command.history.append(memory_to_pb(first))
    command.history.append(memory_to_pb(replace(first, id=mid(5))))  # not this memory's
    publisher = FakePublisher()
    await SaveMemoryHandler(FakeStore(), publisher)("ws", command)
    assert [(subject, msg_id) for subject, _, msg_id in publisher.sent] == [
        ("memhive.evt.memory.restored.ws", "r3:restored:1"),
        ("memhive.evt.memory.saved.ws", "r3:saved"),
    ]


async def test_a_restore_is_checked_like_a_save() -> None:
    bad = replace(a_memory(mid(3), at=NOW - timedelta(days=1)), body="   ")
    with pytest.raises(Exception, match="body"):
        await SaveMemoryHandler(FakeStore(), FakePublisher())("ws", restore("r2", bad))


async def test_the_commands_near_duplicate_check_is_announced_with_its_vector() -> None:
    store, publisher = FakeStore(), FakePublisher()
    checked = save("c1")
    checked.embedding.CopyFrom(pb.Embedding(model="m", values=[1.0, 0.0]))
    checked.near_duplicate_check = 0.85
    checked.near_duplicates.add(memory_id="near", similarity=0.9)
    await SaveMemoryHandler(store, publisher)("ws", checked)
    [(_, event, _)] = publisher.sent
    assert event.near_duplicate_check == 0.85 and list(event.embedding.values) == [1.0, 0.0]
    assert [(n.memory_id, n.similarity) for n in event.near_duplicates] == [("near", 0.9)]
