"""The embedded vector lane leaves out the filter conditions every point meets (one
workspace, nothing expiring, no agent-local node): real qdrant-edge shards, the same hits
as the whole filter, and each condition back as soon as one point could fail it."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import qdrant_edge as qe
from memhive_adapters.lane_conditions import conditions_of
from memhive_adapters.vector.edge_index import EdgeVectorIndex, edge_filter
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter, view_of

from tests.integration.lanes.filter_cases import _at, node_at
from tests.integration.lanes.memories import NOW, a_memory

DIMS = 16
MEMBER = replace(view_of(Principal("ws-1", "user-1")), live_at=NOW)


def vectors(count: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((count, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def a_lane(path: Path, count: int = 200) -> EdgeVectorIndex:
    lane = EdgeVectorIndex(path, DIMS)
    await lane.upsert([(a_memory(f"note {i}"), v) for i, v in enumerate(vectors(count, 1))])
    return lane


async def searched_with_every_condition(lane: EdgeVectorIndex, query, memory_filter) -> list:
    """What the shard answers to the whole filter, nothing left out."""
    request = qe.QueryRequest(
        limit=10,
        query=qe.Query.Nearest([float(x) for x in query]),
        filter=edge_filter(conditions_of(memory_filter)),
        with_payload=False,
        with_vector=False,
    )
    async with lane._reading() as shard:
        return [str(p.id) for p in shard.query(request)]


async def test_a_members_search_finds_what_the_whole_filter_finds(tmp_path: Path) -> None:
    lane = await a_lane(tmp_path / "lane")
    assert lane._shared.needed(conditions_of(MEMBER)) == ()  # nothing left to check
    for query in vectors(5, 2):
        hits = [h.memory_id for h in await lane.search(query, MEMBER, 10)]
        assert hits == await searched_with_every_condition(lane, query, MEMBER)
    await lane.close()


async def test_another_workspace_expired_and_local_memories_stay_out(tmp_path: Path) -> None:
    lane = await a_lane(tmp_path / "lane")
    query = vectors(1, 3)[0]
    strangers = {
        "another workspace": a_memory("theirs", workspace_id="ws-2"),
        "expired": a_memory("gone", expires_at=NOW - timedelta(hours=1)),
        "an agent's local node": a_memory("bob's", **_at("product:alpha/team:mobile/agent:bob")),
    }
    for what, stranger in strangers.items():
        await lane.upsert([(stranger, query)])  # the nearest point there is
        hits = [h.memory_id for h in await lane.search(query, MEMBER, 10)]
        assert stranger.id not in hits, what
        assert hits == await searched_with_every_condition(lane, query, MEMBER)
    await lane.close()


async def test_a_lane_opened_again_reads_what_its_points_share(tmp_path: Path) -> None:
    lane = await a_lane(tmp_path / "lane")
    query = vectors(1, 4)[0]
    theirs = a_memory("theirs", workspace_id="ws-2")
    await lane.upsert([(theirs, query)])
    await lane.close()
    opened = EdgeVectorIndex(tmp_path / "lane", DIMS)
    assert theirs.id not in [h.memory_id for h in await opened.search(query, MEMBER, 10)]
    assert [h.memory_id for h in await opened.search(query, MemoryFilter("ws-2"), 10)] == [
        theirs.id
    ]
    await opened.close()
    alone = await a_lane(tmp_path / "alone")
    await alone.close()
    reopened = EdgeVectorIndex(tmp_path / "alone", DIMS)
    await reopened.ensure_ready()
    assert reopened._shared.needed(conditions_of(MEMBER)) == ()  # read back as one workspace
    await reopened.close()


async def test_a_write_that_brings_a_condition_back_waits_for_searches_planned_without_it(
    tmp_path: Path,
) -> None:
    lane = await a_lane(tmp_path / "lane")
    query = vectors(1, 5)[0]
    released = asyncio.Event()
    run = lane._queries.run

    async def held(search):
        await released.wait()
        return await run(search)

    lane._queries.run = held  # the search stays planned, and in flight, until released
    planned = asyncio.create_task(lane.search(query, MEMBER, 10))
    await asyncio.sleep(0.05)
    theirs = a_memory("theirs", workspace_id="ws-2")
    writing = asyncio.create_task(lane.upsert([(theirs, query)]))
    await asyncio.sleep(0.2)
    assert not writing.done()  # held back: the search left the workspace condition out
    released.set()
    assert theirs.id not in [h.memory_id for h in await planned]
    await writing
    assert theirs.id not in [h.memory_id for h in await lane.search(query, MEMBER, 10)]
    await lane.close()


async def test_a_product_nodes_search_is_one_condition_with_the_whole_filters_hits(
    tmp_path: Path,
) -> None:
    """What the link classifier asks for each new memory of a product: qdrant-edge answers
    one condition from its payload index, and checks two or more point by point."""
    lane = EdgeVectorIndex(tmp_path / "lane", DIMS)
    spread = vectors(300, 4)
    products = [a_memory(f"note {i}", **_at(f"product:p{i % 3}")) for i in range(300)]
    await lane.upsert(list(zip(products, spread, strict=True)))
    at_product = MemoryFilter("ws-1", node=node_at("product:p1"), live_at=NOW)
    assert len(lane._shared.needed(conditions_of(at_product))) == 1
    query = vectors(1, 5)[0]
    teams = a_memory("the team's own", **_at("product:p1/team:mobile"))
    await lane.upsert([(teams, query), (a_memory("not a product's"), query)])
    hits = [h.memory_id for h in await lane.search(query, at_product, 10)]
    assert hits == await searched_with_every_condition(lane, query, at_product)
    assert len(hits) == 10 and {m.id for m in products if m.product_id == "p1"} >= set(hits)
    await lane.close()
