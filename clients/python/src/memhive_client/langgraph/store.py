"""MemhiveStore: LangGraph's long-term memory store (`BaseStore`) kept in memhive (the table
of what goes where is in docs/architecture.md, "LangGraph store"):

- a namespace's leading labels `product:<id>`, `team:<id>`, `agent:<id>` (in that order) name
  a node of the scope tree below the store's `scope_path`; the other labels are a collection
  at that node (a namespace without tree labels lives at `scope_path` itself);
- an item is a key/value entry at its node (`lg.<hash of namespace and key>`): namespace,
  key, value, created_at, updated_at, read back exactly (structured state);
- the item's text (LangGraph's index fields; default the whole value as JSON) is also a
  memory at the node (kind `fact`, tagged `langgraph` and once per namespace prefix,
  `source_ref` naming the entry), so `search(query=...)` is memhive's hybrid recall;
  `put(..., index=False)` keeps the entry only; `delete` deletes it and forgets the memory.

Answers follow LangGraph's InMemoryStore: the same items, values and namespaces; a batch's
reads see the store as it was before the batch's writes; filters and namespace conditions
mean the same. Differences, said plainly: `created_at` is the first put's (as PostgresStore
keeps it; InMemoryStore resets it on every put); scores are recall's fused scores, not
cosines: scaled per query, so they rank one query's items but mean nothing across queries
(of two items found, the second scores 0); a query returns at most 20 items (recall's
bound), and `offset + limit` past that returns fewer; a namespace whose items were all
deleted is no longer listed (as in LangGraph's Postgres and SQLite stores; InMemoryStore
goes on listing it); a filter names top-level keys, as in InMemoryStore and PostgresStore
(SQLiteStore also reads dotted paths). Namespaces given as lists are read as tuples, as
SQLiteStore reads them.

TTLs (`ttl=` on put, `MemhiveStore(ttl={"default_ttl": ..., "refresh_on_read": ...})`): an
item with one expires on the server, entry and memory at the same instant, so no sweeper is
needed (`sweep_ttl` and the sweeper's methods are there and sweep nothing, so code written
for LangGraph's SQL stores runs unchanged; `sweep_interval_minutes` means nothing here).
Once expired it is gone from every read, `omit_expired` or not, and its memory from
memhive's recall. A get or search that
refreshes (LangGraph's default) moves the expiry only once it would move by a twentieth of
the TTL (`expiry.REFRESH_STEP`): an item read again and again costs no write each time, and
expires at most that much early. A refresh never overwrites a write made since its read
(compare-and-set). TTLs are whole seconds, 1 s to 366 days.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any, NamedTuple

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    get_text_at_path,
    tokenize_path,
)

from memhive_client.client import AsyncMemhiveClient
from memhive_client.errors import Conflict, NotFound
from memhive_client.langgraph.expiry import expiry, refresh_due, ttl_seconds
from memhive_client.langgraph.matching import matches_condition, matches_filter
from memhive_client.langgraph.namespaces import (
    ITEM_PREFIX,
    NODES_KEY,
    Placement,
    could_hold,
    item_address,
    placement,
    prefix_tag,
    source_ref,
    tags_of,
)
from memhive_client.models import KvEntry

MAX_BODY = 4000  # a memory's body; the entry keeps the whole value
MAX_RECALL = 20


class MemhiveStore(BaseStore):
    """`MemhiveStore(base_url, token, scope_path="global")`; `index={"fields": [...]}` names
    the text to recall items by (LangGraph's paths, e.g. "text", "facts[*].fact"; default
    the whole value as JSON); `ttl` is LangGraph's TTLConfig (minutes). Use it as
    `graph.compile(store=...)`; `close()` when done."""

    supports_ttl = True

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        scope_path: str = "global",
        index: dict[str, Any] | None = None,
        ttl: TTLConfig | None = None,
        client_factory=None,
    ) -> None:
        self._root = scope_path
        self.ttl_config = ttl
        if ttl and ttl.get("default_ttl") is not None:
            ttl_seconds(ttl["default_ttl"])  # refused now, not at the first put
        fields = (index or {}).get("fields") or ["$"]
        self._fields = [(f, tokenize_path(f) if f != "$" else f) for f in fields]
        self._new_client = client_factory or (lambda: AsyncMemhiveClient(base_url, token))
        self._clients: dict[int, AsyncMemhiveClient] = {}
        self._loop: asyncio.AbstractEventLoop | None = None  # runs batch() for sync callers
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # --- BaseStore ------------------------------------------------------------------------

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await _Batch(self, self._client()).run(list(ops))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        future = asyncio.run_coroutine_threadsafe(self.abatch(ops), self._background_loop())
        return future.result()

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    def close(self) -> None:
        """Closes the HTTP clients, and the sync API's loop and thread (aclose: the clients)."""
        if self._loop is None:
            return
        loop, thread, self._loop = self._loop, self._thread, None
        asyncio.run_coroutine_threadsafe(self.aclose(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()

    # --- TTL sweeps: LangGraph's SQL stores delete expired rows themselves; memhive expires
    # items on the server, so code written for them runs unchanged and sweeps nothing.

    def sweep_ttl(self) -> int:
        """Items this call deleted: none, memhive expired them already."""
        return 0

    def start_ttl_sweeper(self, sweep_interval_minutes: int | None = None) -> Future[None]:
        """A sweeper that is done at once, as PostgresStore's is without a TTL config."""
        done: Future[None] = Future()
        done.set_result(None)
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        return True

    # --- plumbing -------------------------------------------------------------------------

    def _client(self) -> AsyncMemhiveClient:
        """One HTTP client per event loop (an httpx client belongs to the loop it runs on)."""
        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            self._clients[loop] = self._new_client()
        return self._clients[loop]

    def _background_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
                self._thread.start()
            return self._loop

    def text_of(self, value: dict[str, Any], index: list[str] | None | bool) -> str | None:
        """The text recall finds the item by (None: the item is not indexed)."""
        if index is False:
            return None
        fields = self._fields if index is None else [(f, tokenize_path(f)) for f in index]
        texts: list[str] = []
        for path, tokens in fields:
            if path == "$":
                texts.append(json.dumps(value, ensure_ascii=False, sort_keys=True))
            else:
                texts += [t for t in get_text_at_path(value, tokens) if t]
        text = "\n".join(t for t in texts if t.strip()).strip()
        return text[:MAX_BODY] or None


class _Batch:
    """One batch: reads first (they see the store as it was), then the writes, the last
    write of a key winning, as InMemoryStore does."""

    def __init__(self, store: MemhiveStore, client: AsyncMemhiveClient) -> None:
        self._store, self._client, self._root = store, client, store._root
        self._read_entries: dict[Placement, _Read] = {}  # what reads may refresh

    async def run(self, ops: list[Op]) -> list[Result]:
        ops = [_with_tuples(op) for op in ops]
        results: list[Result] = []
        for op in ops:
            results.append(await self._read(op))
        writes = {(op.namespace, op.key): op for op in ops if isinstance(op, PutOp)}
        written = {placement(*k, self._root) for k in writes}
        refreshed = [r for place, r in self._read_entries.items() if place not in written]
        await asyncio.gather(*(self._refresh(r) for r in refreshed))
        for op in writes.values():
            await (self._put(op) if op.value is not None else self._delete(op))
        return results

    async def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            place = placement(op.namespace, op.key, self._root)
            kv = await self._kv(place.node, place.kv_key)
            if kv is None:
                return None
            self._was_read(place, kv, op.refresh_ttl)
            return _item(kv.value)
        if isinstance(op, SearchOp):
            return await self._search(op)
        if isinstance(op, ListNamespacesOp):
            return await self._namespaces(op)
        if isinstance(op, PutOp):
            return None
        raise ValueError(f"Unknown operation type: {type(op)}")

    # --- reads ----------------------------------------------------------------------------

    async def _entry(self, namespace: tuple[str, ...], key: str) -> dict | None:
        place = placement(namespace, key, self._root)
        kv = await self._kv(place.node, place.kv_key)
        return None if kv is None else kv.value

    async def _kv(self, node: str, kv_key: str) -> KvEntry | None:
        try:
            return await self._client.get_state(node, kv_key)
        except NotFound:
            return None

    def _was_read(self, place: Placement, kv: KvEntry, refresh: bool) -> None:
        """An item a read returned: its TTL moves on after the batch's reads."""
        if refresh and kv.value.get("ttl_minutes") is not None:
            self._read_entries[place] = _Read(place, kv)

    async def _refresh(self, read: _Read) -> None:
        minutes, now = read.kv.value["ttl_minutes"], datetime.now(UTC)
        if not refresh_due(minutes, read.kv.expires_at, now):
            return
        place = read.place
        try:
            await self._client.set_state(
                place.node,
                place.kv_key,
                read.kv.value,
                ttl_s=ttl_seconds(minutes),
                revision=read.kv.revision,
            )
        except Conflict:
            return  # written since it was read: that write gave the item its own expiry
        if memory_id := read.kv.value.get("memory_id"):
            with contextlib.suppress(NotFound, Conflict):  # its memory changed or left since
                await self._client.update(memory_id, expires_at=expiry(minutes, now))

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query:
            return await self._recalled(op)
        found = [r async for r in self._entries(op.namespace_prefix)]
        kept = [r for r in found if matches_filter(r.kv.value["value"], op.filter)]
        page = _in_store_order(kept)[op.offset : op.offset + op.limit]
        for read in page:
            self._was_read(read.place, read.kv, op.refresh_ttl)
        return [_item(r.kv.value, SearchItem) for r in page]

    async def _recalled(self, op: SearchOp) -> list[SearchItem]:
        tag = prefix_tag(self._root, op.namespace_prefix)
        hits = await self._client.recall(op.query, tags=[tag], max_results=MAX_RECALL)
        found: list[tuple[_Read, float]] = []
        for hit in hits:
            address = item_address(hit.source_ref)
            kv = await self._kv(*address) if address else None
            if kv is None or kv.value.get("memory_id") != hit.id:
                continue  # a memory whose item changed or left since
            if matches_filter(kv.value["value"], op.filter):
                found.append((_Read(Placement(*address), kv), hit.score))
        page = found[op.offset : op.offset + op.limit]
        for read, _ in page:
            self._was_read(read.place, read.kv, op.refresh_ttl)
        return [_item(read.kv.value, SearchItem, score=score) for read, score in page]

    async def _entries(self, prefix: tuple[str, ...]):
        """Every item whose namespace starts with `prefix`, from the nodes that may hold it."""
        for node in await self._nodes():
            if not could_hold(node, prefix, self._root):
                continue
            async for kv in self._client.iter_state(node, include_values=True):
                item = kv.value
                ours = kv.key.startswith(ITEM_PREFIX) and isinstance(item, dict)
                if ours and tuple(item["namespace"][: len(prefix)]) == prefix:
                    yield _Read(Placement(node, kv.key), kv)

    async def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        seen = {tuple(r.kv.value["namespace"]) async for r in self._entries(())}
        if op.match_conditions:
            seen = {
                ns
                for ns in seen
                if all(
                    matches_condition(ns, c.match_type, tuple(c.path)) for c in op.match_conditions
                )
            }
        if op.max_depth is not None:
            seen = {ns[: op.max_depth] for ns in seen}
        return sorted(seen)[op.offset : op.offset + op.limit]

    async def _nodes(self) -> list[str]:
        try:
            known = (await self._client.get_state(self._root, NODES_KEY)).value
        except NotFound:
            return []
        return list(known.get("nodes", []))

    # --- writes ---------------------------------------------------------------------------

    async def _put(self, op: PutOp) -> None:
        ttl_s = None if op.ttl is None else ttl_seconds(op.ttl)  # refused before any write
        place = placement(op.namespace, op.key, self._root)
        before = await self._entry(op.namespace, op.key)
        moment = datetime.now(UTC)
        now = moment.isoformat()
        created = before["created_at"] if before else now
        text = self._store.text_of(op.value, op.index)
        expires = None if op.ttl is None else expiry(op.ttl, moment)
        memory_id = await self._memory(op, place, before, text, created, expires)
        entry = {
            "namespace": list(op.namespace),
            "key": op.key,
            "value": op.value,
            "created_at": created,
            "updated_at": now,
            "memory_id": memory_id,
            "text_digest": _digest(text),  # the text itself is the memory's body
            "ttl_minutes": op.ttl,
        }
        ttl = {} if ttl_s is None else {"ttl_s": ttl_s}
        await self._client.set_state(place.node, place.kv_key, entry, **ttl)
        await self._remember_node(place.node)

    async def _memory(
        self, op: PutOp, place, before: dict | None, text, created, expires
    ) -> str | None:
        """The item's memory: kept when its text did not change, re-written when it did;
        it expires when the item does."""
        old = before.get("memory_id") if before else None
        had_ttl = before is not None and before.get("ttl_minutes") is not None
        expiring = {"expires_at": expires} if expires is not None or had_ttl else {}
        if old and before.get("text_digest") == _digest(text):
            if expiring:
                with contextlib.suppress(NotFound):  # forgotten by someone else: kept as before
                    await self._client.update(old, **expiring)
            return old
        if old and text:
            changed = await self._client.update(
                old, body=text, force=True, wait="indexed", **expiring
            )
            return changed.memory.id
        if old:
            await self._forget(old)
        if not text:
            return None
        saved = await self._client.save(
            "fact",
            text,
            scope_path=place.node,
            tags=tags_of(self._root, op.namespace),
            source_ref=source_ref(place.node, place.kv_key),
            # Two items with the same text stay two memories: a memory that says when it
            # happened is another occurrence (memhive's content id includes occurred_at).
            occurred_at=datetime.fromisoformat(created),
            expires_at=expires,
            force=True,
            wait="indexed",
        )
        return saved.id

    async def _delete(self, op: PutOp) -> None:
        before = await self._entry(op.namespace, op.key)
        if before is None:
            return
        if before.get("memory_id"):
            await self._forget(before["memory_id"])
        place = placement(op.namespace, op.key, self._root)
        await self._client.delete_state(place.node, place.kv_key)

    async def _forget(self, memory_id: str) -> None:
        with contextlib.suppress(NotFound):  # forgotten already
            await self._client.forget(memory_id, wait="indexed")

    async def _remember_node(self, node: str) -> None:
        """The nodes the store wrote to, kept at its root so listings know where to look;
        compare-and-set, so concurrent stores add their nodes without losing one."""
        for _ in range(8):
            try:
                current = await self._client.get_state(self._root, NODES_KEY)
            except NotFound:
                current = None
            nodes = list(current.value.get("nodes", [])) if current else []
            if node in nodes:
                return
            try:
                fields = {"revision": current.revision} if current else {"create_only": True}
                value = {"nodes": sorted([*nodes, node])}
                await self._client.set_state(self._root, NODES_KEY, value, **fields)
                return
            except Exception as error:  # a concurrent writer moved it on: read again
                if getattr(error, "status", None) != 409:
                    raise
        raise RuntimeError(f"could not record node {node} in {NODES_KEY}")


class _Read(NamedTuple):
    """An item as a read found it: where it is, and its entry (revision, expiry)."""

    place: Placement
    kv: KvEntry


def _with_tuples(op: Op) -> Op:
    """LangGraph's API says tuples; lists are taken too, as its SQLite store takes them."""
    if isinstance(op, GetOp | PutOp) and not isinstance(op.namespace, tuple):
        return op._replace(namespace=tuple(op.namespace))
    if isinstance(op, SearchOp) and not isinstance(op.namespace_prefix, tuple):
        return op._replace(namespace_prefix=tuple(op.namespace_prefix))
    return op


def _in_store_order(reads: list[_Read]) -> list[_Read]:
    """As InMemoryStore lists: namespace by namespace, in the order each got its first item,
    then its items in the order they were created."""
    first: dict[tuple, str] = {}
    for read in reads:
        namespace, created = tuple(read.kv.value["namespace"]), read.kv.value["created_at"]
        first[namespace] = min(first.get(namespace, created), created)
    return sorted(
        reads,
        key=lambda r: (first[tuple(r.kv.value["namespace"])], r.kv.value["created_at"]),
    )


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode()).hexdigest()


def _item(entry: dict, kind=Item, **extra) -> Any:
    return kind(
        value=entry["value"],
        key=entry["key"],
        namespace=tuple(entry["namespace"]),
        created_at=datetime.fromisoformat(entry["created_at"]),
        updated_at=datetime.fromisoformat(entry["updated_at"]),
        **extra,
    )
