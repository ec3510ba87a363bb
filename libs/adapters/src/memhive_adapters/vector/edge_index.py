"""VectorIndex on the Qdrant engine embedded in this process (qdrant-edge)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import shutil
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import qdrant_edge as qe
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports import DocumentTerms
from memhive_ports.lanes import LaneHit

from memhive_adapters.free_heap import release_free_heap
from memhive_adapters.free_space import FreeSpace
from memhive_adapters.lane_conditions import (
    After,
    AnyGroup,
    AnyOf,
    Between,
    Condition,
    Equals,
    Excludes,
    conditions_of,
)
from memhive_adapters.process_lifetime import die_with_parent
from memhive_adapters.vector import shard_dirs
from memhive_adapters.vector.build_journal import SPILL_AFTER, BuildJournal, PlainWrite
from memhive_adapters.vector.payload_indexes import ensure_payload_indexes
from memhive_adapters.vector.query_batches import QueryBatches, ShardQuery
from memhive_adapters.vector.shard_config import search_params, shard_config, warm_mapped_files
from memhive_adapters.vector.shared_by_all import SharedByAll
from memhive_adapters.vector.term_payload import TERMS_FIELD, payload_of, terms_in

log = logging.getLogger(__name__)

# The swap replays a build's journal in up to _REPLAY_ROUNDS rounds while writes go on,
# then the rest (~_REPLAYED_UNDER_LOCK points unless writes outpace the replay) while
# they wait.
_REPLAY_ROUNDS = 3
_REPLAYED_UNDER_LOCK = 2_000
_JOURNAL_HELD = SPILL_AFTER  # points a build's journal holds in memory; the rest on disk


class EdgeVectorIndex:
    """Cosine nearest neighbours in a qdrant-edge shard kept under `path`.

    One owning process per path. Reads run in worker threads and may overlap (but `query`
    holds the GIL for most of a search, measured: the event loop waits meanwhile); writes
    are serialised by an asyncio.Lock. close() flushes and releases the shard; a later call on
    the same object opens it again.

    Points are searched exactly until `hnsw_after` of them are outside an HNSW index. Then
    the shard is copied and the copy optimised in a child process (`optimize_shard`:
    qdrant-edge's optimize() holds the GIL for tens of seconds, which would stall every
    request here). The writes made meanwhile are kept in a journal (`BuildJournal`) and
    replayed into the copy, which then replaces the shard (`_swap_in`). New points go to
    the shard's small appendable segment, searched exactly, until the next build takes them
    in. 0 turns builds off.

    A lane that goes quiet is built sooner: once no point was written for `idle_s` seconds
    and at least `hnsw_when_idle` are outside HNSW, a build starts then, so a store that
    stops after a load (or between bursts of saves) is not left searching up to
    `hnsw_after` points exactly, which costs a search 3-4x its CPU at 100k (measured). 0
    turns that off.

    With `space`, no write (and no build) starts while the data dir is below its low-space
    watermark: InsufficientStorage instead, which the consumer retries. The shard's files
    are memory-mapped, and a write the full disk cannot hold is a SIGBUS that kills the
    process (measured on a full tmpfs), not an error one could catch.
    """

    def __init__(
        self,
        path: Path,
        dimensions: int,
        *,
        hnsw_after: int = 0,
        indexing_threshold_kb: int | None = None,
        search_threads: int | None = None,
        hnsw_when_idle: int = 0,
        idle_s: float = 10.0,
        space: FreeSpace | None = None,
        int8: bool = False,
    ) -> None:
        self._path = Path(path)
        self._space = space
        self._dimensions = dimensions
        self._hnsw_after, self._threshold_kb = hnsw_after, indexing_threshold_kb
        self._search_threads = search_threads
        self._int8 = int8  # built segments score in int8, then rescore (shard_config.py)
        self._search_params = search_params(int8)  # decided once, not on every search
        self._idle_after, self._idle_s = hnsw_when_idle, idle_s
        self._last_write = 0.0  # the event loop's clock
        self._idle_watch: asyncio.Task | None = None
        self._shard: qe.EdgeShard | None = None
        self._write_lock = asyncio.Lock()
        self._unindexed = 0  # points written since the last build (an estimate)
        self._journal: BuildJournal | None = None  # writes during a build, not yet replayed
        self._build: asyncio.Task | None = None
        self._readers: Counter[int] = Counter()  # in-flight reads, by shard
        self._reads_done = asyncio.Condition()
        self._queries = QueryBatches()
        # What every point shares (a search leaves out what all meet), and the searches in
        # flight by the version of those facts they were planned with.
        self._shared = SharedByAll()
        self._planned: Counter[int] = Counter()

    async def ensure_ready(self) -> None:
        async with self._write_lock:
            if self._shard is None:
                self._shard = await asyncio.to_thread(self._open)
                # A lane left with many points outside HNSW (a load that ended during a
                # build, then a restart) is built now, not at the next write; with fewer,
                # once it has been quiet for a while.
                self._last_write = asyncio.get_running_loop().time()
                self._maybe_build()
                self._watch_for_idle()

    async def upsert(
        self,
        items: Sequence[tuple[Memory, Sequence[float]]],
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> None:
        kept = [(m, v, payload_of(m, terms)) for m, v in items if not m.forgotten]
        # qdrant-edge reads any sequence of numbers: a copy through float() cost ~7 us a point.
        points = [qe.Point(m.id, v, payload) for m, v, payload in kept]
        forgotten = [m.id for m, _ in items if m.forgotten]
        await self._ready()
        async with self._write_lock:
            if points:
                if self._shared.widen(payload for _, _, payload in kept):
                    await self._searches_planned_before(self._shared.version)
                operation = qe.UpdateOperation.upsert_points(points)
                await self._apply(operation, len(points), lambda: _plain_upsert(kept))
                self._unindexed += len(points)
            if forgotten:
                operation = qe.UpdateOperation.delete_points(forgotten)
                await self._apply(operation, len(forgotten), lambda: ("delete", forgotten))
            self._last_write = asyncio.get_running_loop().time()
        self._maybe_build()
        self._watch_for_idle()

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        doomed = qe.Filter(must=[_ids(memory_ids), _workspace(workspace_id)])
        operation = qe.UpdateOperation.delete_points_by_filter(doomed)
        await self._ready()
        plain = ("delete_in", workspace_id, list(memory_ids))
        async with self._write_lock:
            await self._apply(operation, len(memory_ids), lambda: plain)

    async def search(
        self, vector: Sequence[float], memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        await self._ready()  # the lane's facts are read as it opens
        version = self._shared.version
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(vector)),
            filter=_filter_of(self._shared.needed(_conditions_of(memory_filter))),
            with_payload=False,
            with_vector=False,
            params=self._search_params,
        )
        self._planned[version] += 1
        try:
            async with self._reading() as shard:
                found = await self._queries.run(ShardQuery(shard, request))
        finally:
            self._planned[version] -= 1
            async with self._reads_done:
                self._reads_done.notify_all()
        return [LaneHit(str(p.id), p.score) for p in found]

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        wanted = qe.Filter(must=[_ids(memory_ids), _workspace(workspace_id)])
        request = qe.ScrollRequest(limit=len(memory_ids), filter=wanted, with_payload=False)
        async with self._reading() as shard:
            records, _ = await asyncio.to_thread(shard.scroll, request)
        return {str(r.id) for r in records}

    async def vectors(self, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        if not memory_ids:
            return {}
        async with self._reading() as shard:
            records = await asyncio.to_thread(shard.retrieve, list(memory_ids), False, True)
        return {str(r.id): list(r.vector) for r in records if r.vector is not None}

    async def document_terms(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, DocumentTerms]:
        if not memory_ids:
            return {}
        wanted = qe.Filter(must=[_ids(memory_ids), _workspace(workspace_id)])
        request = qe.ScrollRequest(
            limit=len(memory_ids), filter=wanted, with_payload=[TERMS_FIELD], with_vector=False
        )
        async with self._reading() as shard:
            records, _ = await asyncio.to_thread(shard.scroll, request)
        return terms_in((str(r.id), r.payload) for r in records)

    async def count(self, workspace_id: str | None = None) -> int:
        where = None if workspace_id is None else qe.Filter(must=[_workspace(workspace_id)])
        async with self._reading() as shard:
            return await asyncio.to_thread(shard.count, qe.CountRequest(exact=True, filter=where))

    async def hnsw_coverage(self) -> tuple[int, int]:
        """(points, points inside an HNSW index) of the shard."""
        async with self._reading() as shard:
            info = await asyncio.to_thread(shard.info)
        return info.points_count, info.indexed_vectors_count

    async def settled(self) -> None:
        """Returns once no HNSW build is under way (tests, benchmarks, shutdown)."""
        while (build := self._build) is not None:
            await asyncio.shield(build)

    async def close(self) -> None:
        watch, self._idle_watch = self._idle_watch, None
        if watch is not None:
            watch.cancel()
        build, self._build = self._build, None
        if build is not None:
            build.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await build
        async with self._write_lock:
            shard, self._shard = self._shard, None
            if shard is not None:
                await asyncio.to_thread(_flush_and_close, shard)

    async def drop(self) -> None:
        await self.close()
        await asyncio.to_thread(shutil.rmtree, self._path, True)

    async def _ready(self) -> qe.EdgeShard:
        if self._shard is None:
            await self.ensure_ready()
        assert self._shard is not None
        return self._shard

    def _open(self) -> qe.EdgeShard:
        here = shard_dirs.active_shard(self._path)
        shard_dirs.remove_unused(self._path)  # a build a crash interrupted, a retired shard
        config = self._config()
        if any(here.glob("*")):
            warm_mapped_files(here)
            shard = qe.EdgeShard.load(str(here), config)
            info = shard.info()
            self._unindexed = info.points_count - info.indexed_vectors_count
            self._shared = self._shared.reread(shard)
            return shard
        self._shared = self._shared.reread(None)
        here.mkdir(parents=True, exist_ok=True)
        shard = qe.EdgeShard.create(str(here), config)
        ensure_payload_indexes(shard)
        return shard

    def _config(self) -> qe.EdgeConfig:
        return shard_config(self._dimensions, int8=self._int8, search_threads=self._search_threads)

    async def _apply(
        self, operation: qe.UpdateOperation, points: int, plain: Callable[[], PlainWrite]
    ) -> None:
        """One write of `points` points, under the write lock; journaled for the copy when
        a build is under way (`plain`: the write in plain values, should the journal spill).

        On the event loop, not a worker thread: qdrant-edge's `update` holds the GIL from
        start to end (measured: a Python thread beside an upsert of 20,000 points ran ~1% of
        its 210 ms), so a worker only added its hand-off, 0.15-0.3 ms to a one-point write
        of ~0.04 ms (docs/benchmarks.md, "A lone pass")."""
        assert self._shard is not None
        if self._space is not None:
            self._space.require("the vector lane took no write")
        self._shard.update(operation)
        if self._journal is not None:
            self._journal.note(operation, points, plain)

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[qe.EdgeShard]:
        """The current shard, kept open until this read ends even if a build replaces it."""
        shard = await self._ready()
        self._readers[id(shard)] += 1
        try:
            yield shard
        finally:
            self._readers[id(shard)] -= 1
            async with self._reads_done:
                self._reads_done.notify_all()

    # --- HNSW builds out of process --------------------------------------------------

    def _maybe_build(self, at_least: int | None = None) -> None:
        if self._hnsw_after <= 0 or self._build is not None or self._shard is None:
            return
        if self._space is not None and self._space.low:
            return  # a build copies the shard: the next write after space is back starts it
        if self._unindexed >= (self._hnsw_after if at_least is None else at_least):
            self._build = asyncio.create_task(self._build_hnsw(), name=f"hnsw:{self._path}")

    def _watch_for_idle(self) -> None:
        if self._idle_after <= 0 or self._hnsw_after <= 0 or self._idle_watch is not None:
            return
        if self._build is None and self._unindexed >= self._idle_after:
            self._idle_watch = asyncio.create_task(
                self._build_when_idle(), name=f"hnsw-idle:{self._path}"
            )

    async def _build_when_idle(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            # Each write moves the deadline: sleep until the latest one, not an event.
            while (quiet := loop.time() - self._last_write) < self._idle_s:  # noqa: ASYNC110
                await asyncio.sleep(self._idle_s - quiet)
        finally:
            if self._idle_watch is asyncio.current_task():
                self._idle_watch = None
        self._maybe_build(at_least=self._idle_after)

    async def _build_hnsw(self) -> None:
        target: Path | None = None
        swapped = False
        try:
            target = await self._copy_for_build()
            await self._optimize_in_child(target)
            swap = asyncio.ensure_future(self._swap_in(target))
            try:
                await asyncio.shield(swap)
            except asyncio.CancelledError:
                await swap  # a swap once begun is finished, never left half done
                raise
            swapped = True
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("HNSW build of %s failed; searches stay exact", self._path)
        finally:
            if self._journal is not None:
                self._journal.discard()
            self._journal = None
            self._build = None
            if target is not None and self._shard_path() != target:
                await asyncio.to_thread(shutil.rmtree, target, True)  # an abandoned copy
        if swapped:
            # The writes made during this build (a bulk load: hundreds of thousands at 1M)
            # are outside HNSW; with no write after them, nothing else would start the next.
            self._maybe_build()
            self._watch_for_idle()

    async def _copy_for_build(self) -> Path:
        async with self._write_lock:
            assert self._shard is not None
            await asyncio.to_thread(self._shard.flush)
            source, target = self._shard_path(), shard_dirs.next_shard(self._path)
            await asyncio.to_thread(shard_dirs.copy_shard, source, target)
            spill = self._path / f"{target.name}.journal"  # beside the copy, never inside
            self._journal = BuildJournal(spill, _operation_of, _JOURNAL_HELD)
            self._unindexed = 0
        log.info("building HNSW for %s in %s", self._path, target.name)
        return target

    async def _optimize_in_child(self, target: Path) -> None:
        arguments = [str(target), str(self._dimensions), "int8" if self._int8 else "float"]
        if self._threshold_kb is not None:
            arguments.append(str(self._threshold_kb))
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "memhive_adapters.vector.optimize_shard",
            *arguments,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            preexec_fn=die_with_parent(),  # a kill -9 of memhive leaves no builder behind
        )
        try:
            output, _ = await child.communicate()
        finally:
            if child.returncode is None:  # cancelled: the build is abandoned
                child.kill()
                await child.wait()
        if child.returncode != 0:
            raise RuntimeError(f"optimize_shard exited {child.returncode}: {output[-2000:]!r}")
        for line in output.decode(errors="replace").splitlines()[:-1]:  # the last: its outcome
            log.info("HNSW build for %s: %s", self._path, line)

    async def _swap_in(self, target: Path) -> None:
        """The built copy takes the writes made during its build, then replaces the shard.

        The copy is loaded and most of the journal replayed while writes go on (each round
        takes what the journal holds, leaving it empty for the writes made meanwhile);
        writes wait only for the last few. (Under the lock, writes waited for the whole swap:
        1.8-7.9 s per swap up to 400k, measured.)"""
        clock = asyncio.get_running_loop().time
        began = clock()
        await asyncio.to_thread(warm_mapped_files, target)
        loading = clock()
        # A worker thread, yet qdrant-edge holds the GIL for the whole load: the process waits
        # for it (measured: 0.55 s for 300k points alone and 4.3 s at 1M during a bulk load;
        # 1.7 and 7-8 s with the numeric payload indexes on the heap, payload_indexes.py).
        # The mapped files were read just before, without the GIL.
        built = await asyncio.to_thread(qe.EdgeShard.load, str(target), self._config())
        loaded = clock() - loading
        replayed = 0
        try:
            for _ in range(_REPLAY_ROUNDS):
                if self._journal is None or len(self._journal) <= _REPLAYED_UNDER_LOCK:
                    break
                replayed += await asyncio.to_thread(self._journal.take().replay_into, built.update)
            async with self._write_lock:
                held = clock()
                if self._journal is not None:
                    taken = self._journal.take()
                    replayed += await asyncio.to_thread(taken.replay_into, built.update)
                await asyncio.to_thread(built.flush)
                await asyncio.to_thread(shard_dirs.point_at, self._path, target)
                retired, self._shard = self._shard, built
                held = clock() - held
        except BaseException:
            await asyncio.to_thread(built.close)
            raise
        log.info(
            "HNSW for %s swapped in (%s): loaded in %.1f s, %d points replayed, %.1f s in all,"
            " writes held %.2f s",
            self._path,
            target.name,
            loaded,
            replayed,
            clock() - began,
            held,
        )
        if retired is not None:
            await self._retire(retired)

    async def _searches_planned_before(self, version: int) -> None:
        """Once no search planned with facts older than `version` is in flight: a write
        that breaks a fact waits for the searches that left its condition out."""
        async with self._reads_done:
            await self._reads_done.wait_for(
                lambda: not any(n for v, n in self._planned.items() if v < version)
            )

    async def _retire(self, shard: qe.EdgeShard) -> None:
        """Closes a replaced shard once the reads still on it are done, and removes it.
        What it and the journal held is given back to the kernel (`free_heap`)."""
        async with self._reads_done:
            await self._reads_done.wait_for(lambda: self._readers[id(shard)] == 0)
        self._readers.pop(id(shard), None)
        await asyncio.to_thread(_flush_and_close, shard)
        await asyncio.to_thread(shard_dirs.remove_unused, self._path)
        await asyncio.to_thread(release_free_heap)

    def _shard_path(self) -> Path:
        return shard_dirs.active_shard(self._path)


@functools.lru_cache(maxsize=64)
def _conditions_of(memory_filter: MemoryFilter) -> tuple[Condition, ...]:
    return tuple(conditions_of(memory_filter))


@functools.lru_cache(maxsize=64)
def _filter_of(conditions: tuple[Condition, ...]) -> qe.Filter | None:
    """A search's filter, built once for the searches that share it (a classifier batch's
    memories of one scope; building one is ~20 us of Python); None for no condition."""
    return edge_filter(conditions) if conditions else None


def edge_filter(conditions: Sequence[Condition]) -> qe.Filter:
    return qe.Filter(must=[_edge_condition(c) for c in conditions])


def _edge_condition(condition: Condition) -> qe.FieldCondition | qe.Filter:
    match condition:
        case Equals(field, value):
            return qe.FieldCondition(field, match=qe.MatchValue(value))
        case AnyOf(field, values):
            return qe.FieldCondition(field, match=qe.MatchAny(list(values)))
        case After(field, moment):
            return qe.FieldCondition(field, range=qe.RangeFloat(gt=moment))
        case Between(field, lowest, highest):
            return qe.FieldCondition(field, range=qe.RangeFloat(gte=lowest, lt=highest))
        case Excludes(field, values):
            return qe.Filter(must_not=[qe.FieldCondition(field, match=qe.MatchAny(list(values)))])
        case AnyGroup(groups):
            return qe.Filter(should=[edge_filter(group) for group in groups])
    raise TypeError(f"unknown condition {condition!r}")


def _plain_upsert(kept: Sequence[tuple[Memory, Sequence[float], dict]]) -> PlainWrite:
    rows = [(m.id, np.asarray(v, dtype=np.float32).tobytes(), p) for m, v, p in kept]
    return ("upsert", rows)


def _operation_of(plain: PlainWrite) -> qe.UpdateOperation:
    """A journaled write in plain values (`_plain_upsert`, ...) as the write it was."""
    match plain:
        case ("upsert", rows):
            points = [qe.Point(i, np.frombuffer(v, dtype=np.float32), p) for i, v, p in rows]
            return qe.UpdateOperation.upsert_points(points)
        case ("delete", ids):
            return qe.UpdateOperation.delete_points(ids)
        case ("delete_in", workspace_id, ids):
            doomed = qe.Filter(must=[_ids(ids), _workspace(workspace_id)])
            return qe.UpdateOperation.delete_points_by_filter(doomed)
    raise ValueError(f"not a journaled write: {plain[0]!r}")


def _ids(memory_ids: Sequence[str]) -> qe.HasIdCondition:
    return qe.HasIdCondition(set(memory_ids))


def _workspace(workspace_id: str) -> qe.FieldCondition:
    return qe.FieldCondition("workspace_id", match=qe.MatchValue(workspace_id))


def _flush_and_close(shard: qe.EdgeShard) -> None:
    shard.flush()
    shard.close()
