"""SaveMemory over fakes: the record a save creates and the MemorySaved it announces, and how it
treats duplicates, near-duplicates and the memories it supersedes; only a save waiting for
`indexed` embeds before it answers."""

from __future__ import annotations

import asyncio
import gc
import logging
from dataclasses import replace

import pytest
from memhive.v1 import edges_pb2, events_pb2
from memhive_application.announcements import Announcer
from memhive_contracts.mapping import memory_from_pb
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound
from memhive_domain.ids import content_id
from memhive_domain.memory import MemoryDraft, forget
from memhive_domain.products import Product
from memhive_domain.scopes import Visibility
from memhive_ports import BusUnavailable, InsufficientStorage, LaneHit
from memhive_query.use_cases.conflicts import NEIGHBOURS, ConflictCheck, NearDuplicates
from memhive_query.use_cases.identical import MAX_ATTEMPTS, IdenticalSaves
from memhive_query.use_cases.link import EdgeCommands
from memhive_query.use_cases.save import SaveMemory

from tests.fakes import (
    FakeEmbedder,
    FakeLexicalIndex,
    FakeProductDirectory,
    FakePublisher,
    FakeStore,
    FakeVectorIndex,
    FakeWaiter,
    FixedClock,
)
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid

BODY = "Release trains leave every other Tuesday"


class Rig:
    def __init__(
        self,
        *similar: tuple[int, float],
        arrives: bool = True,
        products: FakeProductDirectory | None = None,
    ) -> None:
        self.store, self.publisher = FakeStore(), FakePublisher()
        self.vector, self.waiter = (
            FakeVectorIndex([LaneHit(mid(n), s) for n, s in similar]),
            FakeWaiter(arrives=arrives),
        )
        self.lexical, self.embedder = FakeLexicalIndex(), FakeEmbedder()
        self.save = SaveMemory(
            self.embedder, Announcer(self.publisher),
            IdenticalSaves(self.store, self.waiter, self.lexical),
            self.waiter, FixedClock(NOW), 1.0,
            conflicts=ConflictCheck(self.vector, self.store, 0.85),
            edges=EdgeCommands(self.publisher, self.waiter, 1.0),
            products=products,
        )  # fmt: skip

    def commands(self) -> list[str]:
        return [type(message).__name__ for _, message, _ in self.publisher.sent]


async def test_a_save_waiting_for_indexed_records_and_announces_it_with_its_vector() -> None:
    rig = Rig()
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert outcome.status == "indexed" and outcome.memory.created_at == NOW
    [(subject, event, msg_id)] = rig.publisher.sent
    assert isinstance(event, events_pb2.MemorySaved)
    assert (subject, msg_id) == ("memhive.evt.memory.saved.ws", event.event_id)
    assert event.event_id == f"{event.command_id}:saved"
    assert event.memory.id == outcome.memory.id and event.embedding.model == "fake-embedder"
    assert list(event.embedding.values) == [1.0, 0.0, 0.0]
    stored = rig.store.rows[("ws", outcome.memory.id)]  # the record, created by the gateway
    assert stored.memory == outcome.memory and stored.last_command_id == event.command_id
    assert outcome.memory.id == content_id("ws", "global", BODY, 0)  # the body's slot
    assert rig.embedder.texts == [BODY]  # one pass
    assert rig.waiter.expected == [(outcome.memory.id, "indexed")]


@pytest.mark.parametrize("wait", ["persisted", "accepted"])
async def test_a_save_not_waiting_for_indexed_publishes_no_vector_and_embeds_nothing(
    wait: str,
) -> None:
    """The vector is embed's to compute: the pass costs more than such a save's answer. The
    record and its MemorySaved are durable when the answer comes: nothing is waited for."""
    rig = Rig((1, 0.9))  # a near-duplicate: not looked for, not refused
    rig.store.put(memory(1, body="Release trains leave every second Tuesday"))
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), wait)
    assert outcome.status == wait
    [(_, event, _)] = rig.publisher.sent
    assert isinstance(event, events_pb2.MemorySaved)
    assert not event.HasField("embedding")
    assert ("ws", outcome.memory.id) in rig.store.rows
    assert rig.embedder.texts == [] and rig.vector.searches == [] and rig.waiter.expected == []


async def test_past_the_wait_the_save_is_accepted() -> None:
    outcome = await Rig(arrives=False).save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert outcome.status == "accepted"


async def test_the_same_body_in_the_scope_returns_the_existing_memory() -> None:
    rig = Rig((1, 0.99))
    rig.store.put(memory(1, body=BODY))
    rig.lexical.hits.append(LaneHit(mid(1), 1.0))
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert (outcome.status, outcome.memory.id) == ("duplicate", mid(1))
    assert rig.publisher.sent == []


@pytest.mark.parametrize("wait", ["persisted", "accepted"])
async def test_without_a_vector_the_same_body_is_still_found_by_its_content_id(wait: str) -> None:
    rig = Rig()
    held = replace(memory(1, body=BODY), id=content_id("ws", "global", BODY, 0))
    rig.store.put(held)
    rig.lexical.hits.append(LaneHit(held.id, 1.0))  # indexed long ago
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), wait)
    assert (outcome.status, outcome.memory.id) == ("duplicate", held.id)
    assert rig.publisher.sent == [] and rig.embedder.texts == []
    assert rig.store.rows[("ws", held.id)].memory == held  # left as it was


async def test_a_forgotten_copy_moves_the_save_to_the_bodys_next_slot() -> None:
    rig = Rig()
    gone = replace(memory(1, body=BODY), id=content_id("ws", "global", BODY, 0))
    rig.store.put(forget(gone, NOW))
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted")
    assert (outcome.status, outcome.memory.id) == ("persisted", content_id("ws", "global", BODY, 1))


async def test_past_the_slots_a_save_keeps_its_own_id() -> None:
    rig = Rig()
    for attempt in range(MAX_ATTEMPTS):
        copy = replace(memory(1, body=BODY), id=content_id("ws", "global", BODY, attempt))
        rig.store.put(forget(copy, NOW))
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted")
    assert outcome.status == "persisted"
    assert outcome.memory.id not in {content_id("ws", "global", BODY, a) for a in range(8)}
    assert ("ws", outcome.memory.id) in rig.store.rows


@pytest.mark.parametrize("failure", [InsufficientStorage("disk full"), BusUnavailable("no answer")])
async def test_a_record_whose_announcement_failed_stays_and_a_retry_announces_it(
    failure: Exception,
) -> None:
    """MemorySaved refused (a full disk) or unanswered (it may be in the log): the record
    stays, as the audit entry says the save happened; the caller's retry answers with it
    and announces it again under the same event id (the stream drops that if the first
    arrived)."""
    rig = Rig()
    rig.publisher.failure = failure
    with pytest.raises(type(failure)):
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    [(_, stored)] = rig.store.rows.items()
    assert rig.waiter.expected == []
    rig.publisher.failure = None
    again = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted")
    assert (again.status, again.memory) == ("duplicate", stored.memory)
    [(_, event, msg_id)] = rig.publisher.sent
    assert msg_id == f"{stored.last_command_id}:saved" == event.event_id


@pytest.mark.parametrize("wait", ["indexed", "persisted"])
async def test_an_identical_save_announces_a_record_left_unannounced_again(wait: str) -> None:
    """A save killed between its record and its MemorySaved left a record nothing indexes:
    the next save of that body announces it under the first save's event id (the stream
    drops it when the first did reach the log) and answers with it."""
    rig = Rig()
    slot = content_id("ws", "global", BODY, 0)
    orphan = await rig.store.create(replace(memory(1, body=BODY), id=slot), "cmd-killed")
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), wait)
    assert (outcome.status, outcome.memory) == ("duplicate", orphan.memory)
    [(subject, event, msg_id)] = rig.publisher.sent
    assert isinstance(event, events_pb2.MemorySaved) and subject == "memhive.evt.memory.saved.ws"
    assert (msg_id, event.command_id) == ("cmd-killed:saved", "cmd-killed")
    assert event.memory.id == slot and not event.HasField("embedding")
    if wait == "indexed":
        assert rig.waiter.expected == [(slot, "indexed")]  # answered once it is recallable


async def test_a_duplicate_the_lexical_lane_lacks_yet_is_answered_once_indexed() -> None:
    """The vector lane is written first: a caller waiting for "indexed" must not get the
    duplicate's id before a listing or a keyword search can return it."""
    rig = Rig((1, 0.99))
    rig.store.put(memory(1, body=BODY))
    outcome = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert (outcome.status, outcome.memory.id) == ("duplicate", mid(1))
    assert rig.waiter.expected == [(mid(1), "indexed")]  # waited on its MemoryIndexed

    rig.waiter.expected.clear()
    rig.lexical.hits.append(LaneHit(mid(1), 1.0))
    await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert rig.waiter.expected == []  # in both lanes already: nothing to wait for
    assert rig.publisher.sent == []


async def test_a_near_duplicate_is_refused_unless_forced() -> None:
    rig = Rig((1, 0.9))
    rig.store.put(memory(1, body="Release trains leave every second Tuesday"))
    with pytest.raises(NearDuplicates) as refused:
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert [s.memory.id for s in refused.value.similar] == [mid(1)]
    assert rig.publisher.sent == []
    forced = await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed", force=True)
    assert forced.status == "indexed" and rig.commands() == ["MemorySaved"]


async def test_supersedes_saves_then_links_an_updates_edge() -> None:
    rig = Rig((1, 0.9))
    rig.store.put(memory(1, body="Release trains leave every second Tuesday"))
    draft = MemoryDraft(kind="fact", body=BODY)
    outcome = await rig.save(MEMBER, draft, "persisted", supersedes=[mid(1)])
    assert outcome.status == "persisted"
    assert rig.commands() == ["MemorySaved", "LinkMemories"]
    link = rig.publisher.sent[1][1]
    assert isinstance(link, edges_pb2.LinkMemories)
    [edge] = link.edges
    assert (edge.src_id, edge.dst_id, edge.kind) == (
        outcome.memory.id,
        mid(1),
        edges_pb2.EDGE_KIND_UPDATES,
    )


async def test_supersedes_must_name_visible_memories() -> None:
    rig = Rig()
    for unknown in (mid(7), "not-a-uuid"):
        with pytest.raises(NotFound):
            await rig.save(
                MEMBER, MemoryDraft(kind="fact", body=BODY), "persisted", supersedes=[unknown]
            )
    assert rig.publisher.sent == []


async def test_a_viewer_cannot_save() -> None:
    with pytest.raises(NotAllowed):
        await Rig().save(VIEWER, MemoryDraft(kind="fact", body=BODY), "persisted")


async def test_a_checked_save_tells_the_link_classifier_the_threshold_it_passed() -> None:
    """No near-duplicate at 0.85 in its scope: the classifier need not search again."""
    rig = Rig((1, 0.6))
    rig.store.put(memory(1, body="Hotfixes skip the train"))
    await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    [(_, event, _)] = rig.publisher.sent
    assert event.HasField("near_duplicate_check") and event.near_duplicate_check == 0.85


async def test_a_forced_save_tells_the_link_classifier_its_near_duplicates() -> None:
    """Saved beside its near-duplicates: the classifier links them without searching again."""
    rig = Rig((1, 0.9), (2, 0.6))
    rig.store.put(memory(1, body="Release trains leave every second Tuesday"))
    await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed", force=True)
    [(_, event, _)] = rig.publisher.sent
    assert event.near_duplicate_check == 0.85
    assert [(n.memory_id, n.similarity) for n in event.near_duplicates] == [(mid(1), 0.9)]


@pytest.mark.parametrize(
    ("draft", "hits"),
    [
        (MemoryDraft(kind="event", body=BODY, occurred_at=NOW), [(1, 0.9)]),  # that moment only
        (MemoryDraft(kind="fact", body=BODY), [(n, 0.9) for n in range(1, NEIGHBOURS + 1)]),
    ],
)
async def test_a_save_not_checked_against_its_whole_scope_says_nothing(
    draft: MemoryDraft, hits: list[tuple[int, float]]
) -> None:
    """A moment of its own; or as many near-duplicates as were asked for (more may exist)."""
    rig = Rig(*hits)
    for n, _ in hits:
        rig.store.put(memory(n, body=f"Release trains leave every {n}th Tuesday"))
    await rig.save(MEMBER, draft, "indexed", force=True)
    [(_, event, _)] = rig.publisher.sent
    assert event.HasField("embedding") and not event.HasField("near_duplicate_check")
    assert not event.near_duplicates


@pytest.mark.parametrize("wait", ["indexed", "persisted"])
async def test_an_invalid_draft_costs_no_pass_and_no_read(wait: str) -> None:
    """Refused before the bus is asked anything, its product's record included."""
    products = LookedUpProducts()
    rig = Rig(products=products)
    with pytest.raises(InvalidInput):
        await rig.save(MEMBER, MemoryDraft(kind="rumour", body=BODY, product_id="billing"), wait)
    assert rig.embedder.texts == [] and rig.store.gets == [] and products.looked_up == []


class LookedUpProducts(FakeProductDirectory):
    def __init__(self) -> None:
        super().__init__()
        self.looked_up: list[str] = []

    async def get(self, workspace_id: str, product_id: str):
        self.looked_up.append(product_id)
        return await super().get(workspace_id, product_id)


@pytest.mark.parametrize("wait", ["indexed", "persisted"])
@pytest.mark.parametrize(
    ("held", "inherited"),
    [(Visibility.PUBLIC, "public"), (Visibility.PRIVATE, "private"), (None, "private")],
)
async def test_a_save_into_a_product_takes_the_visibility_of_its_record(
    wait: str, held: Visibility | None, inherited: str
) -> None:
    products = FakeProductDirectory()
    if held is not None:
        await products.put(Product("ws", "billing", "Billing", held, "u1", NOW))
    rig = Rig(products=products)
    draft = MemoryDraft(kind="fact", body=BODY, product_id="billing")
    outcome = await rig.save(MEMBER, draft, wait)
    assert outcome.memory.visibility.value == inherited
    [(_, event, _)] = rig.publisher.sent
    assert memory_from_pb(event.memory).visibility == outcome.memory.visibility


async def test_a_visibility_given_wins_over_the_products_record() -> None:
    products = FakeProductDirectory()
    await products.put(Product("ws", "billing", "Billing", Visibility.PUBLIC, "u1", NOW))
    rig = Rig(products=products)
    draft = MemoryDraft(kind="fact", body=BODY, product_id="billing", visibility="private")
    outcome = await rig.save(MEMBER, draft, "indexed")
    assert outcome.memory.visibility is Visibility.PRIVATE


class HeldEmbedder(FakeEmbedder):
    """An encoder pass that lasts until the test lets it end; or fails."""

    def __init__(self, failure: Exception | None = None) -> None:
        super().__init__()
        self.release, self.failure = asyncio.Event(), failure
        self.started = False

    async def embed(self, texts):
        self.started = True
        await self.release.wait()
        if self.failure is not None:
            raise self.failure
        return await super().embed(texts)


class HeldProducts(LookedUpProducts):
    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def get(self, workspace_id: str, product_id: str):
        product = await super().get(workspace_id, product_id)
        await self.release.wait()
        return product


async def test_the_reads_a_save_needs_run_during_its_encoder_pass() -> None:
    """The product's record needs no vector: its read on the bus overlaps the pass, not
    follows it."""
    products = HeldProducts()
    await products.put(Product("ws", "billing", "Billing", Visibility.PUBLIC, "u1", NOW))
    rig = Rig(products=products)
    rig.save._embedder = rig.embedder = HeldEmbedder()
    draft = MemoryDraft(kind="fact", body=BODY, product_id="billing")
    saving = asyncio.ensure_future(rig.save(MEMBER, draft, "indexed"))
    for _ in range(5):
        await asyncio.sleep(0)
    # The product's read is still under way, and so is the pass.
    assert products.looked_up == ["billing"] and rig.embedder.started
    assert not saving.done()
    products.release.set()
    rig.embedder.release.set()
    outcome = await saving
    assert outcome.status == "indexed"
    assert outcome.memory.visibility is Visibility.PUBLIC  # the product's, read meanwhile
    assert rig.waiter.expected == [(outcome.memory.id, "indexed")]


async def test_a_save_refused_or_failed_during_its_pass_leaves_no_waiter() -> None:
    """A save that ends without announcing leaves no waiter and no record behind."""
    rig = Rig((1, 0.9))
    rig.store.put(memory(1, body="Release trains leave every second Tuesday"))
    with pytest.raises(NearDuplicates):
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed")
    assert rig.waiter.expected == []
    with pytest.raises(NotFound):  # what it supersedes is read while the pass runs
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed", supersedes=[mid(9)])
    assert rig.waiter.expected == []

    failing = HeldEmbedder(RuntimeError("encoder gone"))
    rig.save._embedder = failing
    saving = asyncio.ensure_future(rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed"))
    await asyncio.sleep(0)
    failing.release.set()
    with pytest.raises(RuntimeError):
        await saving
    await asyncio.sleep(0)
    assert rig.waiter.expected == [] and rig.publisher.sent == []
    assert list(rig.store.rows) == [("ws", mid(1))]  # the seeded neighbour only


async def test_a_pass_that_fails_after_its_save_was_refused_is_not_logged_as_lost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Refused on what it supersedes while its pass still runs, the save raises at once; the
    pass's own failure later has no one awaiting it and must not surface as asyncio's
    "exception was never retrieved"."""
    rig = Rig()
    failing = HeldEmbedder(RuntimeError("encoder gone"))
    rig.save._embedder = failing
    with pytest.raises(NotFound):
        await rig.save(MEMBER, MemoryDraft(kind="fact", body=BODY), "indexed", supersedes=[mid(9)])
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        failing.release.set()
        for _ in range(3):
            await asyncio.sleep(0)
        gc.collect()
    assert "never retrieved" not in caplog.text
