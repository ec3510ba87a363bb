"""Ingest checks a command's requester again (issue 24): the gateway is one sender on the bus
among others, so a save, change, forget or link its requester may not make is dead-lettered
(Poison), or rejected edge by edge, and writes nothing. Agent bob, homed at
`product:x/team:a/agent:bob`, reads `global` but may not write it; a command that states no
requester is applied as before."""

from __future__ import annotations

import pytest
from memhive.v1 import commands_pb2, edges_pb2, requester_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts.mapping import to_timestamp
from memhive_domain.errors import InvalidInput
from memhive_domain.scopes import Scope, Visibility
from memhive_ingest.forget_memory import ForgetMemoryHandler
from memhive_ingest.link_memories import LinkMemoriesHandler
from memhive_ingest.save_memory import SaveMemoryHandler
from memhive_ingest.update_memory import UpdateMemoryHandler
from memhive_ports.poison import Poison

from tests.fakes import FakePublisher, FakeStore
from tests.unit.query.memories import NOW, memory, mid

BOB = requester_pb2.Requester(role="agent", home="product:x/team:a/agent:bob")
VIEWER = requester_pb2.Requester(role="viewer", home="global")
GLOBAL, PRODUCT = 1, 2


def world() -> tuple[FakeStore, FakePublisher]:
    store = FakeStore()
    store.put(memory(GLOBAL, visibility=Visibility.PUBLIC))
    store.put(memory(PRODUCT, scope=Scope.PRODUCT, product_id="x"))
    return store, FakePublisher()


def update(n: int, requester=BOB, **changes) -> commands_pb2.UpdateMemory:
    return commands_pb2.UpdateMemory(
        command_id=f"u{n}", workspace_id="ws", memory_id=mid(n), requested_by="bob",
        requested_at=to_timestamp(NOW), requester=requester, changes=pb.MemoryChanges(**changes),
    )  # fmt: skip


async def test_a_save_where_the_requester_may_not_write_is_poison() -> None:
    store, publisher = world()
    command = commands_pb2.SaveMemory(
        command_id="s1",
        memory=pb.Memory(id=mid(9), kind=pb.MEMORY_KIND_FACT, body="b", scope=pb.SCOPE_GLOBAL),
        requested_by="bob",
        requested_at=to_timestamp(NOW),
        requester=BOB,
    )
    with pytest.raises(Poison, match="cannot save.*'global'"):
        await SaveMemoryHandler(store, publisher)("ws", command)
    assert await store.get("ws", mid(9)) is None and publisher.sent == []


async def test_a_flag_and_a_confirmation_need_the_node_writable() -> None:
    store, publisher = world()
    handler = UpdateMemoryHandler(store, publisher)
    with pytest.raises(Poison, match="cannot flag.*'global'"):
        await handler("ws", update(GLOBAL, add_flag=pb.FLAG_KIND_WRONG, flag_reason="no"))
    with pytest.raises(Poison, match="cannot confirm.*'global'"):
        await handler("ws", update(GLOBAL, confirm=True))
    with pytest.raises(Poison, match="cannot update.*'global'"):
        await handler("ws", update(GLOBAL, importance=0.9))
    assert (await store.get("ws", mid(GLOBAL))).memory.revision == 1
    with pytest.raises(Poison, match="outside its view"):  # a viewer reads public only
        await handler("ws", update(PRODUCT, VIEWER, confirm=True))


async def test_a_forget_where_the_requester_may_not_write_is_poison() -> None:
    store, publisher = world()
    command = commands_pb2.ForgetMemory(
        command_id="f1", workspace_id="ws", memory_id=mid(GLOBAL), requested_by="bob",
        requested_at=to_timestamp(NOW), requester=BOB,
    )  # fmt: skip
    with pytest.raises(Poison, match="cannot forget"):
        await ForgetMemoryHandler(store, publisher)("ws", command)
    assert not (await store.get("ws", mid(GLOBAL))).memory.forgotten


async def test_an_edge_demoting_what_the_requester_may_not_write_is_rejected_alone() -> None:
    store, publisher = world()
    store.put(memory(3, scope=Scope.PRODUCT, product_id="x", team_id="a", agent_id="bob"))
    edges = [
        edges_pb2.Edge(src_id=mid(3), dst_id=mid(GLOBAL), kind=edges_pb2.EDGE_KIND_UPDATES),
        edges_pb2.Edge(src_id=mid(3), dst_id=mid(PRODUCT), kind=edges_pb2.EDGE_KIND_UPDATES),
    ]
    command = edges_pb2.LinkMemories(
        command_id="l1", workspace_id="ws", edges=edges, requested_by="bob",
        requested_at=to_timestamp(NOW), requester=BOB,
    )  # fmt: skip
    with pytest.raises(Poison, match="edge 0.*cannot link updates.*'global'"):
        await LinkMemoriesHandler(store, publisher)("ws", command)
    assert (await store.get("ws", mid(GLOBAL))).edges == ()
    assert len((await store.get("ws", mid(PRODUCT))).edges) == 1
    [(_, linked, _)] = publisher.sent
    assert len(linked.edges) == 1 and "global" in linked.rejected[0]


async def test_a_command_without_a_requester_is_applied_as_before() -> None:
    store, publisher = world()
    command = update(GLOBAL, importance=0.9)
    command.ClearField("requester")
    await UpdateMemoryHandler(store, publisher)("ws", command)
    assert (await store.get("ws", mid(GLOBAL))).memory.importance == 0.9


async def test_an_unknown_requester_role_is_invalid_input() -> None:
    store, publisher = world()
    with pytest.raises(InvalidInput, match="requester.role"):
        await UpdateMemoryHandler(store, publisher)(
            "ws", update(GLOBAL, requester_pb2.Requester(role="root"), confirm=True)
        )
