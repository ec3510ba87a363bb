"""memhive_client.langgraph.MemhiveStore against the real stack, answer for answer beside
LangGraph's own InMemoryStore (given memhive's encoder for its index): the same operations give
the same items, namespaces and top hits; and a small graph remembers across threads."""

from __future__ import annotations

import asyncio
import runpy
import uuid
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import GetOp, PutOp
from langgraph.store.memory import InMemoryStore
from memhive_client.langgraph import MemhiveStore
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack

EXAMPLE = Path(__file__).parents[3] / "clients" / "python" / "examples" / "langgraph_remember.py"
ALICE = ("users", "alice", "prefs")
BOB = ("users", "bob", "prefs")
WEB = ("product:shop", "team:web", "docs")


@pytest.fixture
async def stores(stack: Stack, member_clients):
    async def embed(texts: list[str]) -> list[list[float]]:
        return [list(v) for v in await stack.infra.embedder.embed(texts)]

    memhive = MemhiveStore(index={"fields": ["text"]}, client_factory=member_clients)
    reference = InMemoryStore(index={"dims": 384, "embed": embed, "fields": ["text"]})
    yield memhive, reference
    await memhive.aclose()


def plain(result: Any) -> Any:
    """An answer without what legitimately differs (times, scores)."""
    if isinstance(result, list):
        return [plain(r) for r in result]
    if result is None or isinstance(result, tuple):
        return result
    return (result.namespace, result.key, result.value)


async def both(stores, call: str, *args, **kwargs) -> Any:
    memhive, reference = stores
    ours = await getattr(memhive, call)(*args, **kwargs)
    theirs = await getattr(reference, call)(*args, **kwargs)
    assert plain(ours) == plain(theirs), (call, args, kwargs)
    return ours


async def test_the_same_operations_give_the_same_answers(stores) -> None:
    await both(stores, "aput", ALICE, "theme", {"text": "prefers a dark theme", "level": 3})
    await both(stores, "aput", ALICE, "lang", {"text": "writes Python and Rust", "level": 5})
    await both(stores, "aput", BOB, "theme", {"text": "prefers a light theme", "level": 1})
    await both(stores, "aput", WEB, "deploy", {"text": "deploys happen on Tuesdays", "n": [1]})
    await both(
        stores, "aput", ALICE, "theme", {"text": "prefers a dark theme, high contrast", "level": 4}
    )
    await both(stores, "aput", ("users", "alice", "counts"), "raw", {"count": 2}, index=False)

    for namespace, key in [(ALICE, "theme"), (BOB, "theme"), (WEB, "deploy"), (BOB, "nope")]:
        await both(stores, "aget", namespace, key)
    await both(stores, "asearch", ("users",))
    await both(stores, "asearch", ALICE, filter={"level": {"$gte": 4}})
    await both(stores, "asearch", ("users",), filter={"level": 1})
    await both(stores, "asearch", ("product:shop",), filter={"n": [1]})
    await both(stores, "asearch", ("users",), limit=1, offset=1)
    await both(stores, "alist_namespaces")
    await both(stores, "alist_namespaces", prefix=("users",))
    await both(stores, "alist_namespaces", suffix=("prefs",), max_depth=2)
    await both(stores, "alist_namespaces", prefix=("users", "*", "prefs"))

    await both(stores, "adelete", BOB, "theme")
    await both(stores, "aget", BOB, "theme")
    # An emptied namespace is not listed, as in LangGraph's Postgres and SQLite stores (its
    # InMemoryStore keeps an empty dict for it and goes on listing it).
    memhive, reference = stores
    assert BOB in await reference.alist_namespaces()
    assert await memhive.alist_namespaces() == [
        ns for ns in await reference.alist_namespaces() if ns != BOB
    ]


async def test_a_namespace_given_as_a_list_means_what_the_tuple_means(stores) -> None:
    """LangGraph's API says tuples; its SQLite store takes lists as well (its own tests pass
    them), and a query found their items here while a listing did not."""
    memhive, _ = stores
    await memhive.aput(list(ALICE), "theme", {"text": "prefers a dark theme"})
    await memhive.aput(ALICE, "lang", {"text": "writes Python and Rust"})
    listed = await memhive.asearch(("users",))
    assert {i.key for i in listed} == {"theme", "lang"}
    assert plain(await memhive.asearch(["users"])) == plain(listed)
    assert plain(
        await memhive.asearch(["users", "alice", "prefs"], filter={"text": "prefers a dark theme"})
    ) == plain(listed[:1])
    found = await memhive.asearch(["users", "alice"], query="which theme does alice like?")
    assert [i.key for i in found][:1] == ["theme"]
    assert await memhive.alist_namespaces(prefix=["users"]) == [ALICE]


async def test_a_batch_reads_the_store_as_it_was_before_its_writes(stores) -> None:
    batch = [
        PutOp(ALICE, "new", {"text": "likes green tea"}),
        GetOp(ALICE, "new"),
        PutOp(ALICE, "new", {"text": "likes black tea"}),
    ]
    await both(stores, "abatch", batch)
    await both(stores, "aget", ALICE, "new")


async def test_a_query_finds_what_the_reference_finds_first(stores) -> None:
    memhive, reference = stores
    facts = {
        "theme": "prefers a dark theme in every editor",
        "food": "is vegetarian and allergic to peanuts",
        "city": "lives in Lisbon and works remotely",
    }
    for key, text in facts.items():
        for store in stores:
            await store.aput(ALICE, key, {"text": text})
    await memhive.aput(BOB, "food", {"text": "eats everything"})
    for query, key in [
        ("what does alice eat?", "food"),
        ("which colour scheme does she like?", "theme"),
        ("where does alice live?", "city"),
    ]:
        ours = await memhive.asearch(("users", "alice"), query=query)
        theirs = await reference.asearch(("users", "alice"), query=query)
        assert ours[0].key == theirs[0].key == key, query
        assert {i.namespace for i in ours} == {ALICE}  # Bob's food stays out
        assert ours[0].score is not None


async def test_text_changes_and_deletes_reach_recall(stores, stack: Stack) -> None:
    memhive, _ = stores
    await memhive.aput(ALICE, "pet", {"text": "has a cat called Miso"})
    await memhive.aput(ALICE, "pet", {"text": "has a dog called Pixel"})
    hits = await memhive.asearch(ALICE, query="what pet does alice have?")
    assert [(h.key, h.value["text"]) for h in hits][:1] == [("pet", "has a dog called Pixel")]
    await memhive.adelete(ALICE, "pet")
    assert [h.key for h in await memhive.asearch(ALICE, query="what pet?")] == []


async def test_the_sync_api_over_a_real_socket(stack: Stack, gateway_url: str) -> None:
    token = await stack.infra.tokens.issue(
        Principal(f"ws-{uuid.uuid4().hex[:12]}", "g", Role.MEMBER)
    )

    def use_it() -> tuple[Any, list[str], list[tuple[str, ...]]]:
        store = MemhiveStore(gateway_url, token)
        try:
            store.put(("notes",), "a", {"text": "the sync API works"})
            found = [i.key for i in store.search(("notes",), query="does the sync API work?")]
            return store.get(("notes",), "a").value, found, store.list_namespaces()
        finally:
            store.close()

    assert await asyncio.to_thread(use_it) == ({"text": "the sync API works"}, ["a"], [("notes",)])


async def test_the_example_graph_remembers_across_threads(stack: Stack, gateway_url: str) -> None:
    token = await stack.infra.tokens.issue(
        Principal(f"ws-{uuid.uuid4().hex[:12]}", "g", Role.MEMBER)
    )
    example = runpy.run_path(str(EXAMPLE))

    def converse() -> list[str]:
        store = MemhiveStore(gateway_url, token, index={"fields": ["text"]})
        try:
            graph = example["build_graph"](store)
            chat = example["chat"]
            return [
                chat(graph, "monday", "dana", "remember: I deploy the shop on Tuesdays"),
                chat(graph, "monday", "dana", "remember: my cat is called Miso"),
                chat(graph, "friday", "dana", "when do I deploy the shop?"),
                chat(graph, "friday", "lee", "when do I deploy the shop?"),
            ]
        finally:
            store.close()

    assert await asyncio.to_thread(converse) == [
        "I will remember that I deploy the shop on Tuesdays.",
        "I will remember that my cat is called Miso.",
        "You told me: I deploy the shop on Tuesdays",
        "I don't remember anything about that.",  # another user's namespace
    ]
