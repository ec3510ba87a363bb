"""Use case: accept a memory, check it against its scope (duplicates, near-duplicates, what it
supersedes), create its record and announce it (MemorySaved), optionally wait.

The gateway writes a new memory's record itself rather than sending ingest a command: the
create is also the identical-body claim (identical.py), and a save crosses the bus one hop
fewer (docs/architecture.md, "A save's record"). Ingest keeps every other write, and saves
that come as commands (hooks, restores).

Only a caller waiting for `indexed` pays for an encoder pass here: the body is embedded once,
near-duplicates are refused (409) and the vector travels with MemorySaved. For `persisted`
and `accepted` the pass would cost more than the answer's whole budget, so the event goes
without a vector: exact duplicates are still found (the content id's record needs no
vector), embed computes the vector once, and the link classifier links near-duplicates
afterwards.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from memhive.v1 import memory_pb2 as pb
from memhive_application.announcements import Announcer
from memhive_contracts.mapping import to_timestamp
from memhive_domain.edges import Edge, EdgeDraft, EdgeKind, propose_edge
from memhive_domain.errors import NotAllowed
from memhive_domain.ids import uuid7
from memhive_domain.memory import Memory, MemoryDraft, create_memory, inheriting_product
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import can_write, default_visibility, write_refusal
from memhive_ports import Clock, Embedder
from memhive_ports.products import ProductDirectory
from memhive_ports.store import StoredMemory

from memhive_query.event_waiter import EventWaiter
from memhive_query.use_cases.conflicts import CheckedScope, ConflictCheck, exact_duplicate
from memhive_query.use_cases.identical import IdenticalSaves
from memhive_query.use_cases.link import EdgeCommands

Wait = Literal["accepted", "persisted", "indexed"]
# Told the memory once its record is created: the save has happened (the audit trail's entry
# is appended from there, beside the announcement and any wait).
Accepted = Callable[[Memory], None]


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    memory: Memory
    status: str  # the stage reached: accepted, persisted or indexed; or duplicate


class SaveMemory:
    """`identical` writes the record (the body's content id: an identical save in the same
    scope comes back as status "duplicate"); `announcer` publishes MemorySaved. With
    `conflicts` and `edges` (the gateway always passes both): waiting for `indexed`, an exact
    duplicate the vector lane finds is answered the same way and near-duplicates raise
    NearDuplicates unless `force` or `supersedes`; `supersedes` saves and links `updates`
    edges in one step.
    """

    def __init__(
        self,
        embedder: Embedder,
        announcer: Announcer,
        identical: IdenticalSaves,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
        *,
        conflicts: ConflictCheck | None = None,
        edges: EdgeCommands | None = None,
        products: ProductDirectory | None = None,
    ) -> None:
        self._embedder, self._announcer, self._waiter = embedder, announcer, waiter
        self._clock, self._timeout = clock, wait_timeout_s
        self._conflicts, self._edges = conflicts, edges
        self._identical, self._products = identical, products

    async def __call__(
        self,
        principal: Principal,
        draft: MemoryDraft,
        wait: Wait,
        *,
        force: bool = False,
        supersedes: Sequence[str] = (),
        accepted: Accepted | None = None,
    ) -> SaveOutcome:
        """`accepted` is told the memory once its record is created, before it is announced
        and before the wait for `wait`."""
        drafted = self._drafted(principal, draft, "save")
        if wait != "indexed":  # no encoder pass before the answer: see the module's note
            memory = await self._with_product_visibility(principal, draft, drafted)
            stale = await self._superseded(principal, supersedes, memory.created_at)
            return await self.publish(principal, memory, None, wait, stale, accepted=accepted)
        # The pass (on a worker thread) needs only the body: it runs while the product's
        # record and the memories superseded are read, not after.
        passing = asyncio.ensure_future(self._embedder.embed([drafted.body]))
        try:
            memory = await self._with_product_visibility(principal, draft, drafted)
            stale = await self._superseded(principal, supersedes, memory.created_at)
            vector = (await passing)[0]
            checked = await self._checked_scope(principal, memory, vector, force or bool(stale))
        except BaseException:
            passing.add_done_callback(_retrieved)  # a pass no one awaits any more
            raise
        if isinstance(checked, Memory):  # an exact duplicate the vector lane found
            return await self._duplicate(checked, wait)
        return await self.publish(
            principal, memory, vector, wait, stale, checked=checked, accepted=accepted
        )

    async def _checked_scope(
        self, principal: Principal, memory: Memory, vector: list[float], forced: bool
    ) -> CheckedScope | Memory | None:
        """What the scope's search vouches for, or the exact duplicate it found; refuses
        near-duplicates (NearDuplicates) unless forced."""
        if self._conflicts is None:
            return None
        check = await self._conflicts.check(principal, memory, vector, exact_only=forced)
        if (existing := exact_duplicate(check.similar, memory)) is not None:
            return existing
        if check.similar and not forced:
            raise self._conflicts.refusal(check.similar)
        return self._conflicts.covered(principal, memory, check)

    async def checked_memory(
        self,
        principal: Principal,
        draft: MemoryDraft,
        verb: str = "save",
        *,
        read_mentions: bool = True,
    ) -> Memory:
        """The memory a draft makes, checked (InvalidInput), where the caller may write
        (NotAllowed), its visibility inherited from its product's record when it gives none.
        `read_mentions` False: only the check is wanted (`create_memory`)."""
        memory = self._drafted(principal, draft, verb, read_mentions)
        return await self._with_product_visibility(principal, draft, memory)

    def _drafted(
        self, principal: Principal, draft: MemoryDraft, verb: str, read_mentions: bool = True
    ) -> Memory:
        """Checked before anything is read: a memory that would inherit its product's
        visibility has, until the record is read, a product without a record's (private)."""
        require(principal, Action.SAVE)
        now = self._clock.now()
        memory = create_memory(
            draft,
            memory_id=uuid7(int(now.timestamp() * 1000)),
            principal=principal,
            now=now,
            read_mentions=read_mentions,
        )
        if not can_write(principal, memory.scope_ref):
            raise NotAllowed(f"cannot {verb}: {write_refusal(principal, memory.scope_ref)}")
        return memory

    async def _with_product_visibility(
        self, principal: Principal, draft: MemoryDraft, memory: Memory
    ) -> Memory:
        product_id = inheriting_product(draft, principal)
        if product_id is None or self._products is None:
            return memory
        product = await self._products.get(principal.workspace_id, product_id)
        if product is None:
            return memory
        return replace(memory, visibility=default_visibility(memory.scope_ref, product.visibility))

    async def _duplicate(self, existing: Memory, wait: Wait) -> SaveOutcome:
        """The vector lane is written before the lexical one: a duplicate it finds may not be
        recallable yet, and a caller waiting for "indexed" is answered once it is."""
        if self._identical is not None:
            waiting = await self._identical.until_indexed(existing, wait)
            if waiting is not None:
                await self._waiter.wait(waiting, self._timeout)
        return SaveOutcome(existing, "duplicate")

    async def _recorded_duplicate(self, existing: StoredMemory, wait: Wait) -> SaveOutcome:
        """The body's slot held a live memory: that memory is the answer, once indexed when
        the caller waits for it; announced again when its own announcement may be lost."""
        waiting, announce = await self._identical.settle(existing, wait)
        try:
            if announce:
                await self._announce(existing.memory, existing.last_command_id, None)
        except BaseException:
            if waiting is not None:
                self._waiter.cancel(waiting)
            raise
        if waiting is not None:
            await self._waiter.wait(waiting, self._timeout)
        return SaveOutcome(existing.memory, "duplicate")

    async def _superseded(
        self, principal: Principal, supersedes: Sequence[str], now: datetime
    ) -> list[Memory]:
        if not supersedes:
            return []
        if self._conflicts is None or self._edges is None:
            raise NotAllowed("this gateway cannot link memories: save without supersedes")
        return await self._conflicts.superseded(principal, supersedes, now)

    async def publish(
        self,
        principal: Principal,
        memory: Memory,
        vector: list[float] | None,
        wait: Wait,
        stale: Sequence[Memory] = (),
        *,
        checked: CheckedScope | None = None,
        accepted: Accepted | None = None,
    ) -> SaveOutcome:
        """`vector` None: embed computes it. `checked`: what the search found in the scope
        with that vector (the link classifier need not search again)."""
        command_id = str(uuid.uuid4())
        recorded = await self._identical.record(memory, command_id)
        if recorded.existing is not None:
            return await self._recorded_duplicate(recorded.existing, wait)
        created = recorded.created
        assert created is not None  # narrowed: a record is created when none is found
        memory = created.memory
        if accepted is not None:  # the record is durable: the save has happened
            accepted(memory)
        future = self._waiter.expect(memory.id, "indexed") if wait == "indexed" else None
        try:
            await self._announce(memory, command_id, vector, checked)
        except BaseException:
            # Refused, unanswered or cancelled: the record stays (what the audit entry says
            # happened), and a retry of the same body announces it again (identical.py).
            if future is not None:
                self._waiter.cancel(future)
            raise
        edges = [_updates(principal, memory, old, memory.created_at) for old in stale]
        linked = await self._link(principal, edges, wait)
        if future is None:  # durable already: the record and its MemorySaved
            return SaveOutcome(memory, wait if linked else "accepted")
        indexed = await self._waiter.event(future, self._timeout)
        return SaveOutcome(memory, wait if indexed is not None and linked else "accepted")

    async def _announce(
        self,
        memory: Memory,
        command_id: str,
        vector: list[float] | None,
        checked: CheckedScope | None = None,
    ) -> None:
        embedding = (
            None if vector is None else pb.Embedding(model=self._embedder.model_name, values=vector)
        )
        await self._announcer.saved(
            memory,
            event_id=f"{command_id}:saved",
            command_id=command_id,
            occurred_at=to_timestamp(memory.created_at),
            embedding=embedding,
            requested_by=memory.created_by,
            near_duplicate_check=None if checked is None else checked.threshold,
            near_duplicates=() if checked is None else _neighbours(checked.near_duplicates),
        )

    async def _link(self, principal: Principal, edges: Sequence[Edge], wait: Wait) -> bool:
        """Publish the edges after the save (ingest applies them in that order); True when
        applied, or when there is nothing to wait for."""
        if not edges or self._edges is None:
            return True
        command = self._edges.command(principal, edges, edges[0].created_at)
        future = None if wait == "accepted" else self._edges.expect(command)
        await self._edges.publish(command)
        return future is None or await self._edges.applied(future)


def _retrieved(done: asyncio.Future) -> None:
    if not done.cancelled():
        done.exception()  # retrieved: a failure nobody waits for is not logged as unhandled


def _updates(principal: Principal, new: Memory, old: Memory, now: datetime) -> Edge:
    draft = EdgeDraft(new.id, old.id, EdgeKind.UPDATES, rationale="saved as its replacement")
    return propose_edge(draft, created_by=principal.user_id, now=now)


def _neighbours(near: dict[str, float]) -> list[pb.Neighbour]:
    return [pb.Neighbour(memory_id=i, similarity=s) for i, s in near.items()]
