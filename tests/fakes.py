"""In-memory fakes of the ports, for unit tests (no I/O). One of each, shared by every tier
that needs one; integration tests use the real adapters instead."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Generic, TypeVar

from google.protobuf.message import Message
from memhive.v1 import edges_pb2, events_pb2
from memhive_domain.activity import ActivityEvent, ActivityKind, ActivityPosition
from memhive_domain.audit import AuditEntry, AuditQuery
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import Audience
from memhive_domain.edges import Edge
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.kv import KvAddress, KvEntry, KvPage, KvWrite, Precondition, RevisionMismatch
from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.products import Product
from memhive_domain.recall import MemoryFilter
from memhive_domain.revisions import Revision
from memhive_domain.scopes import ScopeRef
from memhive_domain.selection import is_selected
from memhive_domain.tokens import TokenDraft, TokenRecord
from memhive_ports import AuditPage, DocumentTerms, LaneHit
from memhive_ports.dead_letters import DeadLetter
from memhive_ports.store import StoredMemory

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


T = TypeVar("T")


class FixedClock:
    """Clock: `current` until a test moves it (or steps it with `advance`)."""

    def __init__(self, now: datetime = T0 + timedelta(days=30)) -> None:
        self.current = now

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


class FakeStore:
    """MemoryStore with the same revision-checked writes as the KV store."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], StoredMemory] = {}
        self.conflicts_to_raise = 0  # the next N replaces fail as if someone wrote first
        self.reads: list[list[str]] = []  # the ids of each get_many, in order
        self.gets: list[str] = []  # the id of each single get, in order

    def put(self, memory: Memory, edges: tuple[Edge, ...] = ()) -> StoredMemory:
        """Seed a record, as if written long ago."""
        return self._put(memory, memory.revision, "seed", edges)

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None:
        self.gets.append(memory_id)
        return self.rows.get((workspace_id, memory_id))

    async def get_many(self, workspace_id: str, memory_ids: Sequence[str]):
        self.reads.append(list(memory_ids))
        found = {m: self.rows.get((workspace_id, m)) for m in memory_ids}
        return {m: s for m, s in found.items() if s is not None}

    async def create(self, memory: Memory, command_id: str) -> StoredMemory:
        if (memory.workspace_id, memory.id) in self.rows:
            raise ConcurrentUpdate("exists")
        return self._put(memory, 1, command_id)

    async def replace(
        self,
        current: StoredMemory,
        memory: Memory,
        command_id: str,
        edges: tuple[Edge, ...] | None = None,
    ) -> StoredMemory:
        if self.conflicts_to_raise:
            self.conflicts_to_raise -= 1
            raise ConcurrentUpdate("someone wrote in between")
        if self.rows[(memory.workspace_id, memory.id)].revision != current.revision:
            raise ConcurrentUpdate("stale")
        kept = current.edges if edges is None else edges
        return self._put(memory, current.revision + 1, command_id, kept)

    async def purge(self, current: StoredMemory) -> None:
        key = (current.memory.workspace_id, current.memory.id)
        if key not in self.rows or self.rows[key].revision != current.revision:
            raise ConcurrentUpdate("stale")
        del self.rows[key]

    def _put(
        self, memory: Memory, revision: int, command_id: str, edges: tuple[Edge, ...] = ()
    ) -> StoredMemory:
        stored = StoredMemory(memory, revision, command_id, edges)
        self.rows[(memory.workspace_id, memory.id)] = stored
        return stored


@dataclass
class FakePublisher:
    """EventPublisher that keeps what it was given; `failure`, when set, is raised instead."""

    sent: list[tuple[str, Message, str]] = field(default_factory=list)
    failure: Exception | None = None

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        if self.failure is not None:
            raise self.failure
        self.sent.append((subject, message, msg_id))

    def events(self) -> list[Message]:
        """What was sent, in order, each MemoriesIndexed as the MemoryIndexed it holds."""
        return [
            event
            for _, message, _ in self.sent
            for event in (
                message.indexed if isinstance(message, events_pb2.MemoriesIndexed) else [message]
            )
        ]


@dataclass
class FakeScheduler:
    """CommandScheduler that keeps the latest schedule per key, as the stream does."""

    schedules: dict[str, tuple[str, Message, datetime]] = field(default_factory=dict)

    async def schedule(self, key: str, target: str, message: Message, at: datetime) -> None:
        self.schedules[key] = (target, message, at)


@dataclass
class FakeVectorIndex:
    """Answers every search with the scripted hits, best first, and keeps what it was asked."""

    hits: list[LaneHit] = field(default_factory=list)
    searches: list[tuple[MemoryFilter, int]] = field(default_factory=list)
    # Document terms kept, by (workspace, memory id); each read's ids, in order.
    terms: dict[tuple[str, str], DocumentTerms] = field(default_factory=dict)
    terms_reads: list[list[str]] = field(default_factory=list)

    async def search(self, vector, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        self.searches.append((memory_filter, limit))
        return self.hits[:limit]

    async def document_terms(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, DocumentTerms]:
        self.terms_reads.append(list(memory_ids))
        held = ((i, self.terms.get((workspace_id, i))) for i in memory_ids)
        return {i: t for i, t in held if t is not None}


@dataclass
class FakeLexicalIndex:
    """Scripted BM25 hits (those of `by_text` for a text it names), and ids listed from them
    in order; keeps what it was asked."""

    hits: list[LaneHit] = field(default_factory=list)
    searches: list[tuple[str, MemoryFilter, int]] = field(default_factory=list)
    by_text: dict[str, list[LaneHit]] = field(default_factory=dict)

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        self.searches.append((text, memory_filter, limit))
        return self.by_text.get(text, self.hits)[:limit]

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        """The hits in order, as if all created at T0; keyset: strictly after `after`."""
        ids = [h.memory_id for h in self.hits]
        start = 0 if after is None else ids.index(after.memory_id) + 1
        return [ListPosition(T0, i) for i in ids[start : start + limit]]

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        held = {h.memory_id for h in self.hits}
        return {i for i in memory_ids if i in held}

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        """Every scripted hit (the fake filters nothing)."""
        return len(self.hits)


@dataclass
class SelectingLexicalIndex:
    """list_ids over a FakeStore's records, the filter applied as the lanes apply it (the
    lane contract tests hold every engine to `is_selected`), newest first; `lagging` ids are
    listed whatever their record says, as a lane behind a forget would."""

    store: FakeStore
    now: datetime
    lagging: set[str] = field(default_factory=set)
    listings: list[MemoryFilter] = field(default_factory=list)

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        self.listings.append(memory_filter)
        rows = [
            s.memory for (ws, _), s in self.store.rows.items() if ws == memory_filter.workspace_id
        ]
        listed = [
            ListPosition(m.created_at, m.id)
            for m in rows
            if m.id in self.lagging or is_selected(m, memory_filter, self.now)
        ]
        listed.sort(key=lambda p: (p.created_at, p.memory_id), reverse=True)
        return [
            p
            for p in listed
            if after is None or (p.created_at, p.memory_id) < (after.created_at, after.memory_id)
        ][:limit]


class FakeEmbedder:
    """One fixed vector for every text (a unit vector unless given); enough where the lanes
    are fakes too. Two models tell their vectors apart by the one each is given."""

    def __init__(
        self, model_name: str = "fake-embedder", vector: Sequence[float] = (1.0, 0.0, 0.0)
    ) -> None:
        self.model_name, self.vector = model_name, list(vector)
        self.dimensions = len(self.vector)
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return [list(self.vector) for _ in texts]


class FakeWaiter:
    """The gateway's EventWaiter: the awaited event arrives at once, or never (`arrives`)."""

    def __init__(self, *, arrives: bool = True, script: list[Message] | None = None) -> None:
        self.arrives = arrives
        self.script = list(script or [])  # events announced first, in order
        self.expected: list[tuple[str, str]] = []
        self.followed: list[tuple[str, str]] = []  # follow() calls: (key, stage)
        self.stopped_following: list[tuple[str, str]] = []

    def expect(self, key: str, stage: str) -> tuple[str, str]:
        self.expected.append((key, stage))
        return (key, stage)

    async def wait(self, future: tuple[str, str], timeout_s: float) -> bool:
        return self.arrives

    async def event(self, future: tuple[str, str], timeout_s: float) -> Message | None:
        """The next scripted event; then a link's: applied with nothing refused, when it
        arrives at all."""
        if self.script:
            return self.script.pop(0)
        return edges_pb2.MemoriesLinked(command_id=future[0]) if self.arrives else None

    def follow(self, key: str, stage: str) -> tuple[str, str, str]:
        self.followed.append((key, stage))
        return ("following", key, stage)

    @contextlib.contextmanager
    def following(self, key: str, stage: str) -> Iterator[tuple[str, str, str]]:
        handle = self.follow(key, stage)
        try:
            yield handle
        finally:
            self.cancel(handle)

    async def next_event(self, following: tuple[str, str, str], timeout_s: float):
        """As `event`: the scripted events first, then the stage's own (or none)."""
        return await self.event(following[1:], timeout_s)

    def cancel(self, waiting: tuple) -> None:
        if waiting[0] == "following":
            self.stopped_following.append(waiting[1:])
        else:
            self.expected.remove(waiting)


class FakeKeyValueStore:
    """KeyValueStore with the bucket's semantics: one revision counter for every key, never
    reused; expired entries absent; listing in write order."""

    def __init__(self, clock: FixedClock) -> None:
        self.clock = clock
        self.entries: dict[KvAddress, KvEntry] = {}
        self.revision = 0

    async def get(self, address: KvAddress) -> KvEntry | None:
        entry = self.entries.get(address)
        return entry if entry is not None and entry.is_live(self.clock.now()) else None

    async def put(self, write: KvWrite, updated_by: str) -> KvEntry:
        self._check(write.address, write.precondition)
        self.revision += 1
        entry = KvEntry(
            write.address,
            write.value_json,
            self.revision,
            updated_by,
            self.clock.now(),
            write.expires_at,
        )
        self.entries.pop(write.address, None)  # re-inserted last: the write order
        self.entries[write.address] = entry
        return entry

    async def delete(self, address: KvAddress, precondition: Precondition) -> bool:
        if await self.get(address) is None:
            return False
        self._check(address, precondition)
        self.revision += 1
        del self.entries[address]
        return True

    async def list(
        self, workspace_id: str, node: ScopeRef, after: int | None, limit: int
    ) -> KvPage:
        live = [
            e
            for a, e in self.entries.items()
            if (a.workspace_id, a.node) == (workspace_id, node)
            and e.is_live(self.clock.now())
            and e.revision > (after or 0)
        ]
        more = len(live) > limit
        return KvPage(live[:limit], live[limit - 1].revision if more else None)

    def _check(self, address: KvAddress, precondition: Precondition) -> None:
        current = self.entries.get(address)
        live = current.revision if current and current.is_live(self.clock.now()) else None
        if not precondition.holds_for(live):
            raise RevisionMismatch(address, live, precondition)


class FakeActivityLog:
    """ActivityLog over scripted events, newest first. A position's `log` counts the events
    left after it (0: nothing older); `span` ends each read after that many events, as the
    real reader's bound on the log it examines does."""

    def __init__(self, events: Sequence[ActivityEvent], span: int | None = None) -> None:
        self.events, self.span = list(events), span
        self.reads: list[ActivityPosition] = []

    def newest_first(
        self, workspace_id: str, kinds: frozenset[ActivityKind], start: ActivityPosition
    ) -> FakeActivityReading:
        self.reads.append(start)
        left = len(self.events) if start.log is None else start.log
        older = self.events[len(self.events) - left :]
        return FakeActivityReading(older[: self.span] if self.span else older, left)


class FakeActivityReading:
    def __init__(self, events: list[ActivityEvent], left: int) -> None:
        self._events, self._left = events, left
        self.resume: ActivityPosition | None = None

    async def __aiter__(self):
        for n, event in enumerate(self._events, start=1):
            yield replace(event, resume=ActivityPosition(self._left - n, 0))
        remaining = self._left - len(self._events)
        self.resume = ActivityPosition(remaining, 0) if remaining else None


@dataclass
class FakeHealthProbe:
    """HealthProbe answering the scripted checks; counts the lane-size recordings."""

    checks: dict[str, bool] = field(default_factory=lambda: {"nats": True})
    lane_sizes_recorded: int = 0

    async def readiness(self) -> dict[str, bool]:
        return dict(self.checks)

    async def record_lane_sizes(self) -> None:
        self.lane_sizes_recorded += 1


class FakeBulletinStore:
    """BulletinStore in a dict: the latest bulletin of each (workspace, scope key, audience)."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, str, Audience], Bulletin] = {}
        self.refusing: Exception | None = None  # set: every put raises it

    async def get(self, workspace_id: str, scope: ScopeRef, audience: Audience) -> Bulletin | None:
        return self.held.get((workspace_id, scope.key, audience))

    async def put(
        self, workspace_id: str, scope: ScopeRef, audience: Audience, bulletin: Bulletin
    ) -> None:
        if self.refusing is not None:
            raise self.refusing
        self.held[(workspace_id, scope.key, audience)] = bulletin


class FakeTokenCounter:
    """TokenCounter: one token per whitespace-separated word, so budgets are easy to reason
    about (the real tokenizer is tested on its own)."""

    def count(self, text: str) -> int:
        return len(text.split())


@dataclass
class FakeRevisionLog:
    """RevisionLog answering the scripted changes of each memory id; keeps each read."""

    changes_of: dict[str, list[Revision]] = field(default_factory=dict)
    reads: list[tuple[str, str, datetime]] = field(default_factory=list)

    async def changes(self, workspace_id: str, memory_id: str, since: datetime) -> list[Revision]:
        self.reads.append((workspace_id, memory_id, since))
        return list(self.changes_of.get(memory_id, []))


@dataclass
class FakeDeadLetters:
    """DeadLetterReader over `letters`, oldest first; keeps the (limit, scan_limit) of each
    `newest` call."""

    letters: list[DeadLetter] = field(default_factory=list)
    scans: list[tuple[int, int]] = field(default_factory=list)

    async def list(
        self, consumer: str | None = None, limit: int = 100
    ) -> builtins.list[DeadLetter]:
        return [d for d in self.letters if consumer in (None, d.consumer)][:limit]

    async def newest(
        self,
        limit: int,
        *,
        consumer: str | None = None,
        keep: Callable[[DeadLetter], bool] = lambda _: True,
        scan_limit: int = 10_000,
    ) -> builtins.list[DeadLetter]:
        self.scans.append((limit, scan_limit))
        read = [d for d in reversed(self.letters) if consumer in (None, d.consumer)][:scan_limit]
        return [d for d in read if keep(d)][:limit]


class ChangeFeed(Generic[T]):
    """A store's change watch, as a KV watch behaves: each watch opened by `changes()` gets
    every change `tell` reports from then on (a key, a generation, ...)."""

    def __init__(self) -> None:
        self._watches: list[asyncio.Queue[T]] = []

    async def changes(self) -> AsyncIterator[T]:
        watch: asyncio.Queue[T] = asyncio.Queue()
        self._watches.append(watch)

        async def changed() -> AsyncIterator[T]:
            while True:
                yield await watch.get()

        return changed()

    def tell(self, change: T) -> None:
        for watch in self._watches:
            watch.put_nowait(change)


class FakeProductDirectory:
    """ProductDirectory in a dict; `gets` counts the reads, and every put is a change."""

    def __init__(self, *products: Product) -> None:
        self.held = {(p.workspace_id, p.product_id): p for p in products}
        self.gets = 0
        self._feed: ChangeFeed[str] = ChangeFeed()

    async def get(self, workspace_id: str, product_id: str) -> Product | None:
        self.gets += 1
        return self.held.get((workspace_id, product_id))

    async def put(self, product: Product) -> None:
        self.held[(product.workspace_id, product.product_id)] = product
        self._feed.tell(product.product_id)

    async def changes(self) -> AsyncIterator[str]:
        return await self._feed.changes()

    async def list(self, workspace_id: str) -> list[Product]:
        return sorted(
            (p for (ws, _), p in self.held.items() if ws == workspace_id),
            key=lambda p: p.product_id,
        )


class FakeTokenDirectory:
    """TokenDirectory over `records` (token -> record), with what the tests use: lookup
    (counted), get, list, create, revoke, rotate and the change watch."""

    NEW_ID = "0123456789abcdef"

    def __init__(self, records: dict[str, TokenRecord] | None = None) -> None:
        self.records = dict(records or {})
        self.lookups = 0
        self.created: list[tuple[TokenDraft, str]] = []
        self._feed: ChangeFeed[str] = ChangeFeed()

    async def lookup(self, token: str) -> TokenRecord | None:
        self.lookups += 1
        return self.records.get(token)

    async def list(self, workspace_id: str | None = None) -> list[TokenRecord]:
        return [r for r in self.records.values() if workspace_id in (None, r.workspace_id)]

    async def create(
        self, draft: TokenDraft, created_by: str, now: datetime
    ) -> tuple[TokenRecord, str]:
        self.created.append((draft, created_by))
        record, token = draft.record(self.NEW_ID, created_by, now), f"mh_{self.NEW_ID}_secret"
        self.records[token] = record
        self._feed.tell(record.id)
        return record, token

    async def get(self, token_id: str) -> TokenRecord | None:
        return next((r for r in self.records.values() if r.id == token_id), None)

    async def rotate(
        self, token_id: str, now: datetime, grace: timedelta
    ) -> tuple[TokenRecord, str] | None:
        token = next((t for t, r in self.records.items() if r.id == token_id), None)
        if token is None:
            return None
        record = replace(self.records.pop(token), rotated_at=now)
        self.records[f"mh_{token_id}_rotated"] = record
        return record, f"mh_{token_id}_rotated"

    async def revoke(self, token_id: str) -> TokenRecord | None:
        token = next((t for t, r in self.records.items() if r.id == token_id), None)
        if token is None:
            return None
        self._feed.tell(token_id)
        return self.records.pop(token)

    async def changes(self) -> AsyncIterator[str]:
        return await self._feed.changes()


@dataclass
class FakeAuditLog:
    """AuditLog in a list; reads newest first, filtered like the real log, in one page.
    `failure`, when set, is raised by append instead."""

    entries: list[AuditEntry] = field(default_factory=list)
    failure: Exception | None = None

    async def append(self, entry: AuditEntry) -> None:
        if self.failure is not None:
            raise self.failure
        self.entries.append(entry)

    async def read(
        self, workspace_id: str, query: AuditQuery, before: int | None = None
    ) -> AuditPage:
        found = [
            e
            for e in reversed(self.entries)
            if e.workspace_id == workspace_id
            and query.action in (None, e.action)
            and query.matches(e)
        ]
        return AuditPage(found[: query.limit], None)


@dataclass
class FakeReranker:
    """Scores a text by how many of `favoured` words it holds; keeps every text it read."""

    favoured: frozenset[str] = frozenset()
    read: list[str] = field(default_factory=list)

    @property
    def model_name(self) -> str:
        return "fake-reranker"

    async def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.read.extend(texts)
        return [float(sum(w in t.lower() for w in self.favoured)) for t in texts]


@dataclass
class FakeTermWeights:
    """FakeReranker's judgement as terms: a text's terms are the favoured words it holds
    (weight 1 each, ids by their sorted place), the query's all of them, so a dot product
    gives what FakeReranker.score gives. Keeps the queries it read."""

    favoured: frozenset[str] = frozenset()
    queries: list[str] = field(default_factory=list)
    weighed: list[set[int]] = field(default_factory=list)  # the words each call asked for

    @property
    def model_name(self) -> str:
        return "fake-reranker"

    async def document_terms(self, texts: Sequence[str]) -> list[DocumentTerms]:
        return [self._terms(lambda w, t=t: w in t.lower()) for t in texts]

    async def read_query(self, text: str) -> FakeQueryTerms:
        self.queries.append(text)
        return FakeQueryTerms(self._terms(lambda _w: True), self.weighed)

    def _terms(self, holds: Callable[[str], bool]) -> DocumentTerms:
        ids = [i for i, w in enumerate(sorted(self.favoured)) if holds(w)]
        return DocumentTerms(tuple(ids), tuple(1.0 for _ in ids))


@dataclass
class FakeQueryTerms:
    """A query's terms from FakeTermWeights, weighed on the words asked for (noted)."""

    whole: DocumentTerms
    weighed: list[set[int]]

    async def weights_of(self, word_ids: Collection[int]) -> DocumentTerms:
        self.weighed.append(set(word_ids))
        kept = [
            (i, w)
            for i, w in zip(self.whole.word_ids, self.whole.weights, strict=True)
            if i in word_ids
        ]
        return DocumentTerms(tuple(i for i, _ in kept), tuple(w for _, w in kept))
