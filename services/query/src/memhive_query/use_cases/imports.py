"""Use case: import a file of memories (memhive's JSONL export, mem0's get_all JSON, Markdown
memory files) through the save's own rules.

1. `plan` parses the whole file and checks every item as a save would (the domain's
   validation, the caller's right to write at each item's node, key/value entries' bounds):
   any problem raises before anything is written, naming its line, so a bad file leaves
   nothing half-imported.
2. The run then decides item by item, in file order, exactly as a save decides: an exact
   duplicate at the node is skipped (so a second import creates nothing), a near-duplicate is
   skipped unless `force`, except one that came from the same place (same file and heading,
   same mem0 id): the new item supersedes it (`updates` edge), the way a changed line of
   CLAUDE.md replaces what the last import made of it. Items from one file never conflict
   with each other as near-duplicates: they lived side by side where they came from; nor
   is a memory the file still holds (as any of its items) superseded by another item.
3. memhive's export is restored as it was: same ids, authors, times, revisions, curation;
   then its edges, each with its own author and time. A memory whose id is already here
   is skipped.

Each outcome is yielded as it is decided (the route streams them: the CLI's progress bar).
With `dry_run` nothing is written and every outcome says what would happen.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_contracts.requester_mapping import requester_to_pb
from memhive_domain.edges import Edge, add_edge
from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed, NotFound
from memhive_domain.exchange.formats import ImportFormat, parse_import
from memhive_domain.exchange.items import ImportEdge, ImportFile, ImportItem, LineProblems
from memhive_domain.kv import WriteRequest, plan_kv_write
from memhive_domain.link_rights import link_refusal
from memhive_domain.memory import Memory, node_of
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import can_write, home_of, write_refusal
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock, Embedder, EventPublisher, MemoryStore

from memhive_query.event_waiter import EventWaiter
from memhive_query.use_cases.conflicts import ConflictCheck, Similar
from memhive_query.use_cases.key_values import KeyValues
from memhive_query.use_cases.link import EdgeCommands
from memhive_query.use_cases.save import SaveMemory

EMBED_BATCH = 32
# Items of a batch decided and written at once, their outcomes still reported in file order:
# items of one file never wait on each other (siblings, see _one), so an import need not
# wait for each item to be indexed before the next.
IN_FLIGHT = 8
# The plan's checks let the event loop turn after this many items (~5 ms of work): a large
# file is checked between other callers' requests, not instead of them.
CHECKS_PER_TURN = 64
KEPT_MEMORY = "memhive_id"
# Earlier revisions restored with a memory: a command stays far below NATS' 1 MiB payload
# (63 bodies of at most 4000 characters); older ones are left out (the export keeps them).
MAX_HISTORY = 63  # in a kept entry: the memory it was kept beside
_TRAILING_NUMBER = re.compile(r":\d+$")

Status = Literal["created", "restored", "linked", "skipped"]


@dataclass(frozen=True, slots=True)
class ImportRequest:
    form: ImportFormat
    text: str
    path: str = ""  # the file's name as the user has it (CLAUDE.md, .cursor/rules/x.mdc)
    scope_path: str | None = None  # the node to import into; None: the caller's home
    dry_run: bool = False
    force: bool = False  # keep items that near-duplicate memories already here


@dataclass(frozen=True, slots=True)
class ItemOutcome:
    line: int
    status: Status
    dry_run: bool
    memory_id: str | None = None
    kind: str | None = None
    scope_path: str | None = None
    source_ref: str | None = None
    supersedes: tuple[str, ...] = ()
    reason: str = ""  # why it was skipped


@dataclass
class ImportTally:
    created: int = 0
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def count(self, outcome: ItemOutcome) -> None:
        if outcome.status == "skipped":
            self.skipped += 1
            reason = outcome.reason.split(":", 1)[0]
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        else:
            self.created += 1

    def summary(self) -> str:
        why = ", ".join(f"{n} {r}" for r, n in sorted(self.reasons.items()))
        return f"{self.created} created, {self.skipped} skipped" + (f" ({why})" if why else "")


class ImportPorts(Protocol):
    """What an import uses of the infrastructure (the runtime's Infrastructure has them)."""

    embedder: Embedder
    store: MemoryStore
    publisher: EventPublisher
    clock: Clock


class ImportMemories:
    def __init__(
        self,
        save: SaveMemory,
        conflicts: ConflictCheck,
        edges: EdgeCommands,
        key_values: KeyValues,
        waiter: EventWaiter,
        *,
        infra: ImportPorts,
        wait_timeout_s: float,
    ) -> None:
        self._save, self._conflicts, self._edges, self._kv = save, conflicts, edges, key_values
        self._embedder, self._store = infra.embedder, infra.store
        self._publisher, self._clock = infra.publisher, infra.clock
        self._waiter, self._timeout = waiter, wait_timeout_s

    async def plan(self, principal: Principal, request: ImportRequest) -> ImportRun:
        """Every check that needs no engine: raises (422 naming lines, 403 naming the node)
        before the run writes anything."""
        require(principal, Action.IMPORT)
        base = _base_node(principal, request.scope_path)
        now = self._clock.now()
        # Parsed in a worker thread: tens of MiB take seconds, and the loop serves everyone.
        parsed = await asyncio.to_thread(
            parse_import,
            request.form,
            request.text,
            path=request.path or "import",
            base=base,
            workspace_id=principal.workspace_id,
            now=now,
        )
        held = await self._check_items(principal, parsed, now)
        return ImportRun(self, principal, request, parsed, held)

    async def _check_items(self, principal: Principal, parsed: ImportFile, now) -> set[int]:
        """Each item as the memory it would be, checked like a save, every problem named by
        its line; and the caller may write at every node (403 naming the first it may not).
        The memories are not kept: the run makes each again when it comes to it, so a large
        file holds only its items meanwhile (half the memory). Returns what the file holds
        (`_held`, one number an item)."""
        problems = LineProblems("import")
        held: set[int] = set()
        for index, item in enumerate(parsed.items, 1):
            if index % CHECKS_PER_TURN == 0:
                await asyncio.sleep(0)
            try:
                memory = await self.memory_of(principal, item, read_mentions=False)
                _check_kept(principal, memory, item, now)
            except InvalidInput as invalid:
                problems.add(item.line, invalid.problems)
            except NotAllowed as refused:
                raise NotAllowed(f"line {item.line}: {refused}; nothing was imported") from None
            else:
                held.add(_held(memory))
        problems.raise_if_any()
        return held

    async def memory_of(
        self, principal: Principal, item: ImportItem, *, read_mentions: bool = True
    ) -> Memory:
        """`read_mentions` False: for the plan's check, which keeps nothing of it."""
        if item.restored is None:
            return await self._save.checked_memory(
                principal, item.draft, verb="import", read_mentions=read_mentions
            )
        memory = replace(item.restored, workspace_id=principal.workspace_id)
        if not can_write(principal, memory.scope_ref):
            raise NotAllowed(f"cannot import: {write_refusal(principal, memory.scope_ref)}")
        return memory

    # --- used by ImportRun ---------------------------------------------------------------

    async def vectors(self, memories: Sequence[Memory]) -> list[list[float]]:
        return await self._embedder.embed([m.body for m in memories])

    async def similar(self, principal: Principal, memory: Memory, vector) -> list[Similar]:
        return await self._conflicts.similar(principal, memory, vector)

    async def existing(self, principal: Principal, memory_ids: Sequence[str]):
        return await self._store.get_many(principal.workspace_id, list(memory_ids))

    async def save(self, principal, memory, vector, stale: Sequence[Memory]) -> Memory | None:
        """The memory as saved, or None when an identical one turned out to be here already."""
        outcome = await self._save.publish(principal, memory, vector, "indexed", stale)
        return None if outcome.status == "duplicate" else outcome.memory

    async def keep(self, principal: Principal, memory: Memory, item: ImportItem) -> None:
        """The entry kept beside the memory, naming it (`memhive_id`): the next import of the
        same source finds what this one made of it, however much its text changed."""
        if item.kept is not None:
            value = item.kept.value | {KEPT_MEMORY: memory.id}
            await self._kv.put(principal, WriteRequest(memory.scope_ref.key, item.kept.key, value))

    async def earlier(
        self, principal: Principal, memory: Memory, item: ImportItem
    ) -> Memory | None:
        """The live memory an earlier import of the same source made (see `keep`)."""
        if item.kept is None:
            return None
        try:
            entry = await self._kv.get(principal, memory.scope_ref.key, item.kept.key)
        except NotFound:
            return None
        memory_id = entry.value.get(KEPT_MEMORY) if isinstance(entry.value, dict) else None
        stored = (await self.existing(principal, [memory_id])).get(memory_id) if memory_id else None
        live = stored is not None and stored.memory.is_live(self._clock.now())
        return stored.memory if live else None

    async def restore(
        self, principal: Principal, memory: Memory, vector, history: Sequence[Memory]
    ) -> None:
        """Published as a save that keeps the record's own fields, with its earlier revisions
        (the revision history); waits until indexed."""
        command_id = str(uuid.uuid4())
        earlier = [replace(m, workspace_id=principal.workspace_id) for m in history]
        command = commands_pb2.SaveMemory(
            command_id=command_id,
            memory=memory_to_pb(memory),
            embedding=pb.Embedding(model=self._embedder.model_name, values=vector),
            requested_by=principal.user_id,
            requested_at=to_timestamp(self._clock.now()),
            restore=True,
            history=[memory_to_pb(m) for m in earlier[-MAX_HISTORY:]],
            requester=requester_to_pb(principal),
        )
        future = self._waiter.expect(memory.id, "indexed")
        subject = subjects.for_workspace(subjects.SAVE_MEMORY, principal.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        await self._waiter.wait(future, self._timeout)

    async def link(self, principal: Principal, edge: Edge) -> bool:
        """The edge as it was: its author and time travel as the command's."""
        author = replace(principal, user_id=edge.created_by)
        command = self._edges.command(author, [edge], edge.created_at)
        future = self._edges.expect(command)
        await self._edges.publish(command)
        return await self._edges.applied(future)


class ImportRun:
    """The decisions of one import, in file order; iterate it to run it."""

    def __init__(self, imports, principal, request, parsed: ImportFile, held: set[int]) -> None:
        self._imports: ImportMemories = imports
        self._principal, self._request = principal, request
        self._parsed, self._held = parsed, held
        self.tally = ImportTally()

    @property
    def total(self) -> int:
        return len(self._parsed.items) + len(self._parsed.edges)

    @property
    def notes(self) -> tuple[str, ...]:
        return self._parsed.notes

    async def __aiter__(self) -> AsyncIterator[ItemOutcome]:
        items = self._parsed.items
        from_file = {i.restored.id for i in items if i.restored is not None}
        planned: dict[tuple[str, str], int] = {}
        batches = [items[i : i + EMBED_BATCH] for i in range(0, len(items), EMBED_BATCH)]
        ahead = asyncio.create_task(self._prepared(batches[0])) if batches else None
        try:
            for index, batch in enumerate(batches):  # a batch's vectors in hand
                assert ahead is not None  # narrowed: prepared one batch ahead
                memories, vectors = await ahead
                # The next batch is embedded while this one is written.
                later = batches[index + 1] if index + 1 < len(batches) else None
                ahead = None if later is None else asyncio.create_task(self._prepared(later))
                decided = zip(batch, memories, vectors, strict=True)
                # Closed with the run, so what is in flight stops with it.
                async with aclosing(self._decided(decided, from_file, planned)) as outcomes:
                    async for outcome in outcomes:
                        self.tally.count(outcome)
                        yield outcome
        finally:
            if ahead is not None:
                ahead.cancel()
                await asyncio.gather(ahead, return_exceptions=True)
        for edge in self._parsed.edges:
            outcome = await self._edge(edge, from_file)
            self.tally.count(outcome)
            yield outcome

    async def _prepared(self, batch: Sequence[ImportItem]) -> tuple[list[Memory], list]:
        memories = [await self._imports.memory_of(self._principal, i) for i in batch]
        return memories, await self._imports.vectors(memories)

    @property
    def _restoring(self) -> bool:
        return self._request.form is ImportFormat.MEMHIVE

    async def _decided(self, batch, from_file, planned) -> AsyncIterator[ItemOutcome]:
        """A batch's items decided and written IN_FLIGHT at a time; their outcomes in file
        order. An item whose text an earlier item of the file has is a duplicate of it."""
        room = asyncio.Semaphore(IN_FLIGHT)

        async def one(item: ImportItem, memory: Memory, vector) -> ItemOutcome:
            async with room:
                return await self._one(item, memory, vector, from_file)

        pending: list[ItemOutcome | asyncio.Task[ItemOutcome]] = []
        for item, memory, vector in batch:
            first = planned.setdefault((memory.scope_ref.key, memory.body), item.line)
            if first != item.line:
                why = f"duplicate: the same text as line {first}"
                pending.append(self._skipped(item, memory, why))
            else:
                pending.append(asyncio.create_task(one(item, memory, vector)))
        tasks = [p for p in pending if isinstance(p, asyncio.Task)]
        try:
            for outcome in pending:
                yield outcome if isinstance(outcome, ItemOutcome) else await outcome
        finally:  # cut short (a failure, the caller gone): the rest is not written
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _one(self, item: ImportItem, memory: Memory, vector, from_file) -> ItemOutcome:
        if self._restoring and (gone := await self._taken(memory)) is not None:
            return self._skipped(item, memory, gone)
        similar = [
            s
            for s in await self._imports.similar(self._principal, memory, vector)
            if s.memory.id not in from_file
        ]
        if (same := next((s for s in similar if s.memory.body == memory.body), None)) is not None:
            return self._skipped(item, memory, f"already here: memory {same.memory.id}")
        # A memory this file still holds, as another item, is its sibling: neither a
        # near-duplicate of this item nor superseded by it.
        similar = [s for s in similar if _held(s.memory) not in self._held]
        stale = [] if self._restoring else await self._superseded(item, memory, similar)
        near = [s for s in similar if s.memory not in stale]
        if near and not self._request.force:
            ids = ", ".join(s.memory.id for s in near)
            return self._skipped(
                item, memory, f"near-duplicate: of {ids} (import with force to keep both)"
            )
        return await self._write(item, memory, vector, stale)

    async def _superseded(self, item, memory: Memory, similar: list[Similar]) -> list[Memory]:
        """What an earlier import of the same source made of this item, when it changed."""
        stale = [s.memory for s in similar if _same_origin(s.memory, memory)]
        earlier = await self._imports.earlier(self._principal, memory, item)
        changed = earlier is not None and earlier.body != memory.body
        if changed and earlier not in stale and _held(earlier) not in self._held:
            stale.append(earlier)  # the source changed it since the last import
        return stale

    async def _taken(self, memory: Memory) -> str | None:
        found = await self._imports.existing(self._principal, [memory.id])
        if (stored := found.get(memory.id)) is None:
            return None
        if stored.memory.forgotten:
            return "forgotten here: its id belongs to a forgotten memory of this workspace"
        return f"already here: memory {memory.id}"

    async def _write(self, item, memory, vector, stale: list[Memory]) -> ItemOutcome:
        dry = self._request.dry_run
        status: Status = "restored" if self._restoring else "created"
        if not dry:
            if self._restoring:
                await self._imports.restore(self._principal, memory, vector, item.history)
            else:
                saved = await self._imports.save(self._principal, memory, vector, stale)
                if saved is None:
                    return self._skipped(item, memory, "already here: an identical memory")
                memory = saved
                await self._imports.keep(self._principal, memory, item)
        return _outcome(item, memory, status, dry, supersedes=tuple(m.id for m in stale))

    async def _edge(self, edge: ImportEdge, from_file: set[str]) -> ItemOutcome:
        e, dry = edge.edge, self._request.dry_run
        found = await self._imports.existing(self._principal, [e.src_id, e.dst_id])
        ends = [found.get(i) for i in (e.src_id, e.dst_id)]
        if all(s is not None and add_edge(s.edges, e) is s.edges for s in ends):
            return _edge_outcome(edge, "skipped", dry, "already here: the edge holds")
        missing = [i for i, s in zip((e.src_id, e.dst_id), ends, strict=True) if s is None]
        if missing and not (dry and set(missing) <= from_file):
            return _edge_outcome(edge, "skipped", dry, f"end not here: {', '.join(missing)}")
        if not missing and (refused := _link_refusal(self._principal, e, ends)):
            return _edge_outcome(edge, "skipped", dry, f"refused: {refused}")
        if not dry and not await self._imports.link(self._principal, e):
            return _edge_outcome(edge, "skipped", dry, "refused: an end is gone")
        return _edge_outcome(edge, "linked", dry)

    def _skipped(self, item: ImportItem, memory: Memory, reason: str) -> ItemOutcome:
        return _outcome(item, memory, "skipped", self._request.dry_run, reason=reason)


def _outcome(item, memory: Memory, status: Status, dry: bool, **extra) -> ItemOutcome:
    return ItemOutcome(
        line=item.line,
        status=status,
        dry_run=dry,
        memory_id=memory.id,
        kind=memory.kind.value,
        scope_path=memory.scope_ref.key,
        source_ref=memory.source_ref,
        **extra,
    )


def _link_refusal(principal: Principal, edge: Edge, ends) -> str | None:
    """Rights follow the target: an imported `updates` or `contradicts` edge needs the node
    of the memory it demotes writable, like a link (`link_rights`)."""
    src, dst = (stored.memory for stored in ends)
    return link_refusal(principal, edge, src, dst)


def _edge_outcome(edge: ImportEdge, status: Status, dry: bool, reason: str = "") -> ItemOutcome:
    e = edge.edge
    return ItemOutcome(
        line=edge.line,
        status=status,
        dry_run=dry,
        kind=e.kind.value,
        source_ref=f"{e.src_id}->{e.dst_id}",
        reason=reason,
    )


def _held(memory: Memory) -> int:
    """A memory's node and text as one number: what a file holding it is asked."""
    return hash((memory.scope_ref.key, memory.body))


def _same_origin(existing: Memory, new: Memory) -> bool:
    """Came from the same place: the same file and heading (up to the item's number), or
    the same mem0 id."""
    if not existing.source_ref or not new.source_ref:
        return False
    return _TRAILING_NUMBER.sub("", existing.source_ref) == _TRAILING_NUMBER.sub("", new.source_ref)


def _base_node(principal: Principal, scope_path: str | None) -> ScopeRef:
    if not scope_path:
        return home_of(principal)
    problems: list[FieldProblem] = []
    node = node_of(None, None, scope_path, problems)
    if node is None:
        raise InvalidInput(problems or [FieldProblem("scope_path", "names no node")])
    return node


def _check_kept(principal: Principal, memory: Memory, item: ImportItem, now) -> None:
    """A key/value entry kept beside the memory passes the key/value rules up front."""
    if item.kept is not None:
        request = WriteRequest(memory.scope_ref.key, item.kept.key, item.kept.value)
        plan_kv_write(principal.workspace_id, request, now)
