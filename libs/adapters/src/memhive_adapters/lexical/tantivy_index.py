"""LexicalIndex on tantivy, embedded in this process: BM25 over memory bodies."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import shutil
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import tantivy
from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports import InsufficientStorage
from memhive_ports.lanes import LaneHit

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
    epoch_seconds,
    stored_fields,
)
from memhive_adapters.lexical.analyzers import ANALYZERS, DEFAULT_ANALYZER, query_analyzer
from memhive_adapters.lexical.group_commit import GroupCommits
from memhive_adapters.lexical.uncommitted import CorpusStats, Pending, PendingBody, Uncommitted

# How tantivy (Rust's io::ErrorKind) names ENOSPC in the error text tantivy-py raises.
_STORAGE_FULL = "StorageFull"
_KEYWORD_FIELDS = ("workspace_id", "scope", "product_id", "kind", "tags")
_WRITER_HEAP_BYTES = 64_000_000
# A query term weighing less than this in BM25 is left out (informative_terms): at most
# 0.022 of a score, where a term in one memory of a thousand weighs 6.5.
MIN_IDF = 0.01
# Time conditions name the stored field; this index keeps them as integer microseconds.
_MICROSECOND_FIELDS = {"created_at": "created_us", "occurred_at": "occurred_us"}
# A change applied with the writer before a commit: (writer, index).
_Change = Callable[[tantivy.IndexWriter, tantivy.Index], None]
# Group commits by default: at most this long after a write, or once this many are queued.
COMMIT_INTERVAL_S = 0.5
COMMIT_MAX_WRITES = 500
Must, MustNot, Should = tantivy.Occur.Must, tantivy.Occur.MustNot, tantivy.Occur.Should


class TantivyLexicalIndex:
    """BM25 over memory bodies in a tantivy index stored at `path`.

    One owning process per path (tantivy allows one writer per index, held from
    ensure_ready() until close()). A write is searchable when upsert or delete returns: it
    is kept in `Uncommitted` and merged into every read until the searcher holds it. It is
    durable after the next group commit (`commit_interval_s` after the oldest queued write,
    or once `commit_max_writes` are queued: a commit costs ~11 ms of CPU however much it
    holds); `persisted()` says when, and close() commits what is left. Reads run in worker
    threads and may overlap with a commit. `analyzer` names an entry of `ANALYZERS`; an
    index must be reopened with the analyzer it was built with.

    A commit that fails is rolled back (a tantivy writer whose commit failed on a full disk
    silently drops every later commit, even once space is back: measured) and tried again;
    on a full disk its error is InsufficientStorage, and with `space` no write is taken below
    the data dir's low-space watermark. The consumer retries either, never dead-letters it.
    """

    def __init__(
        self,
        path: Path,
        analyzer: str = DEFAULT_ANALYZER,
        *,
        commit_interval_s: float = COMMIT_INTERVAL_S,
        commit_max_writes: int = COMMIT_MAX_WRITES,
        space: FreeSpace | None = None,
    ) -> None:
        self._path = Path(path)
        self._space = space
        self._analyzer_name = analyzer
        self._analyzer = ANALYZERS[analyzer]()
        self._query_analyzer = query_analyzer(analyzer)
        self._index: tantivy.Index | None = None
        self._writer: tantivy.IndexWriter | None = None
        self._open_lock = asyncio.Lock()
        self._uncommitted = Uncommitted()
        self._commits: GroupCommits[_Change] = GroupCommits(
            self._commit,
            self._uncommitted.settle,
            interval_s=commit_interval_s,
            max_writes=commit_max_writes,
        )
        self._totals: tuple[int, float] | None = None  # BM25's (N, avgdl), once read

    async def ensure_ready(self) -> None:
        async with self._open_lock:
            if self._index is None:
                await asyncio.to_thread(self._open)

    async def upsert(self, memories: Sequence[Memory]) -> None:
        if not memories:
            return
        await self._ready()
        self._require_space()
        bodies = [PendingBody.of(m, self._analyzer.analyze(m.body)) for m in memories]
        sequence = self._uncommitted.put(bodies)
        self._commits.add(sequence, functools.partial(_replace, list(memories)))

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        await self._ready()
        self._require_space()
        sequence = self._uncommitted.remove(workspace_id, memory_ids)
        self._commits.add(sequence, functools.partial(_delete_ids, workspace_id, list(memory_ids)))

    def persisted(self) -> Awaitable[None]:
        return self._commits.durable()

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        index = await self._ready()
        pending = self._uncommitted.snapshot()
        return await asyncio.to_thread(self._search, index, text, memory_filter, limit, pending)

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        index = await self._ready()
        pending = self._uncommitted.snapshot()
        return await asyncio.to_thread(self._list_ids, index, memory_filter, after, limit, pending)

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        index = await self._ready()
        held, removed = self._uncommitted.present(workspace_id, memory_ids)
        query = _ids_in_workspace(index, workspace_id, memory_ids)
        found = await asyncio.to_thread(self._ids_matching, index, query, len(memory_ids))
        return (set(found) - removed) | held

    async def count(self, workspace_id: str | None = None) -> int:
        index = await self._ready()
        pending = self._uncommitted.snapshot()
        if workspace_id is None:
            query = tantivy.Query.all_query()
        else:
            query = tantivy.Query.term_query(index.schema, "workspace_id", workspace_id)
        in_workspace = [] if workspace_id is None else [Equals("workspace_id", workspace_id)]
        committed = await asyncio.to_thread(_count, index, _unmasked(index, query, pending))
        return committed + len(pending.matching(in_workspace))

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        index = await self._ready()
        pending = self._uncommitted.snapshot()
        query = _unmasked(index, _filter_query(index, memory_filter), pending)
        committed = await asyncio.to_thread(_count, index, query)
        return committed + len(pending.matching(conditions_of(memory_filter)))

    async def close(self) -> None:
        await self._commits.close()
        async with self._open_lock:
            writer, self._writer, self._index = self._writer, None, None
            if writer is not None:
                await asyncio.to_thread(writer.wait_merging_threads)

    async def drop(self) -> None:
        await self.close()
        await asyncio.to_thread(shutil.rmtree, self._path, True)

    # --- opening and writing ---------------------------------------------------------

    def _open(self) -> None:
        self._path.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(self._tokenizer_name), path=str(self._path), reuse=True)
        index.register_tokenizer(self._tokenizer_name, self._analyzer)
        index.config_reader(reload_policy="manual")
        self._writer = index.writer(_WRITER_HEAP_BYTES, 1)
        self._index = index

    def _require_space(self) -> None:
        if self._space is not None:
            self._space.require("the lexical lane took no write")

    @property
    def _tokenizer_name(self) -> str:
        return f"memhive_{self._analyzer_name}"

    async def _ready(self) -> tantivy.Index:
        if self._index is None:
            await self.ensure_ready()
        assert self._index is not None
        return self._index

    def _commit(self, changes: Sequence[_Change]) -> None:
        """A worker thread's: the group's changes in order, one commit, a new searcher."""
        assert self._writer is not None and self._index is not None
        try:
            for change in changes:
                change(self._writer, self._index)
            self._writer.commit()
        except BaseException as exc:
            self._writer.rollback()  # the group is tried again whole
            if isinstance(exc, ValueError) and _STORAGE_FULL in str(exc):
                raise InsufficientStorage(f"the lexical lane could not write: {exc}") from exc
            raise
        self._index.reload()
        self._totals = None

    # --- reading -----------------------------------------------------------------------

    def _search(
        self,
        index: tantivy.Index,
        text: str,
        memory_filter: MemoryFilter,
        limit: int,
        pending: Pending,
    ) -> list[LaneHit]:
        terms = sorted(set(self._query_analyzer.analyze(text) or self._analyzer.analyze(text)))
        if not terms or limit <= 0:
            return []
        searcher = index.searcher()
        kept = informative_terms(searcher, terms)
        matching = tantivy.Query.boolean_query(
            [(Should, tantivy.Query.term_query(index.schema, "body", t)) for t in kept]
        )
        # The filter restricts but must not score: wrap it so BM25 of the body alone ranks.
        allowed = tantivy.Query.const_score_query(_filter_query(index, memory_filter), 0.0)
        query = _unmasked(
            index, tantivy.Query.boolean_query([(Must, matching), (Must, allowed)]), pending
        )
        hits = [
            (score, _stored_id(searcher, address))
            for score, address in searcher.search(query, limit, count=False).hits
        ]
        if pending.bodies:
            stats = self._corpus_stats(index, searcher, terms)
            hits += pending.scored(kept, conditions_of(memory_filter), stats)
            hits.sort(key=lambda hit: hit[0], reverse=True)
        return [LaneHit(memory_id, score) for score, memory_id in hits[:limit]]

    def _corpus_stats(
        self, index: tantivy.Index, searcher: tantivy.Searcher, terms: Sequence[str]
    ) -> CorpusStats:
        """BM25's statistics as tantivy scores with them. The document count and average
        length are not exposed, but each score's explanation states them: read from a hit
        of a query term, kept until the next commit (none yet: the pending bodies' own)."""
        if self._totals is None:
            self._totals = _explained_totals(index, searcher, terms)
        docs, average = self._totals or (searcher.num_docs, None)
        return CorpusStats(docs, average, functools.partial(searcher.doc_freq, "body"))

    def _list_ids(
        self,
        index: tantivy.Index,
        memory_filter: MemoryFilter,
        after: ListPosition | None,
        limit: int,
        pending: Pending,
    ) -> list[ListPosition]:
        if limit <= 0:
            return []
        query = _unmasked(index, _filter_query(index, memory_filter), pending)
        searcher = index.searcher()
        rows = [
            row
            for row in (
                (_micros(epoch_seconds(b.memory.created_at)), b.memory.id)
                for b in pending.matching(conditions_of(memory_filter))
            )
            if after is None or after.is_after(*row)
        ]
        if after is not None:
            # The rest of the run at the position's own created_at (ids below it), then older.
            tied = _created_between(index, query, after.created_us, after.created_us)
            rows += [r for r in _all_rows(index, searcher, tied) if after.is_after(*r)]
            query = _created_between(index, query, None, after.created_us - 1)
        newest = searcher.search(query, limit, count=False, order_by_field="created_us").hits
        older = [(created, _stored_id(searcher, address)) for created, address in newest]
        if len(older) == limit:
            older = _settle_ties(index, searcher, query, older)
        rows = sorted(rows + older, reverse=True)[:limit]
        return [ListPosition.at(created, memory_id) for created, memory_id in rows]

    def _ids_matching(self, index: tantivy.Index, query: tantivy.Query, limit: int) -> list[str]:
        searcher = index.searcher()
        return [_stored_id(searcher, a) for _, a in searcher.search(query, limit, count=False).hits]


def _replace(memories: Sequence[Memory], writer: tantivy.IndexWriter, index: tantivy.Index) -> None:
    for memory in memories:
        writer.delete_documents_by_term("id", memory.id)
        if not memory.forgotten:
            writer.add_document(_document(memory))


def _delete_ids(
    workspace_id: str,
    memory_ids: Sequence[str],
    writer: tantivy.IndexWriter,
    index: tantivy.Index,
) -> None:
    writer.delete_documents_by_query(_ids_in_workspace(index, workspace_id, memory_ids))


def _ids_in_workspace(
    index: tantivy.Index, workspace_id: str, memory_ids: Sequence[str]
) -> tantivy.Query:
    return tantivy.Query.boolean_query(
        [
            (Must, tantivy.Query.term_set_query(index.schema, "id", list(memory_ids))),
            (Must, tantivy.Query.term_query(index.schema, "workspace_id", workspace_id)),
        ]
    )


def _unmasked(index: tantivy.Index, query: tantivy.Query, pending: Pending) -> tantivy.Query:
    """The query without the committed documents a pending write replaces or removes."""
    if not pending.masked:
        return query
    masked = tantivy.Query.term_set_query(index.schema, "id", pending.masked)
    return tantivy.Query.boolean_query([(Must, query), (MustNot, masked)])


def _explained_totals(
    index: tantivy.Index, searcher: tantivy.Searcher, terms: Sequence[str]
) -> tuple[int, float] | None:
    """(N, avgdl) from the explanation of a committed hit for one of `terms`, or None."""
    for term in terms:
        if searcher.doc_freq("body", term) == 0:
            continue
        query = tantivy.Query.term_query(index.schema, "body", term)
        hits = searcher.search(query, 1, count=False).hits
        if not hits:
            continue
        found = dict(_explained_values(json.loads(query.explain(searcher, hits[0][1]).to_json())))
        if "N" in found and "avgdl" in found:
            return int(found["N"]), float(found["avgdl"])
    return None


def _explained_values(node: dict) -> list[tuple[str, float]]:
    """(name, value) of every step of an explanation, named by its description's first word."""
    name = str(node.get("description", "")).split(",")[0]
    found = [(name, node.get("value", 0.0))]
    for child in node.get("details", []):
        found += _explained_values(child)
    return found


def informative_terms(searcher: tantivy.Searcher, terms: list[str]) -> list[str]:
    """The query's terms less those that weigh next to nothing in BM25 (idf below MIN_IDF:
    in more than about 99% of the documents of a store past a few dozen), unless nothing
    else is left. Their postings span the whole index, and the filter makes tantivy score
    every document of a union: at 1M memories with one such term, 35-40 against 12 ms of
    CPU a search."""
    documents = searcher.num_docs
    kept = [t for t in terms if _idf(searcher.doc_freq("body", t), documents) >= MIN_IDF]
    return kept or terms


def _idf(holding: int, documents: int) -> float:
    """BM25's inverse document frequency, as tantivy computes it."""
    return math.log(1 + (documents - holding + 0.5) / (holding + 0.5))


def _settle_ties(
    index: tantivy.Index,
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    rows: list[tuple[int, str]],
) -> list[tuple[int, str]]:
    """The page may end inside a run of equal created_at values, and tantivy breaks such
    ties arbitrarily: fetch the whole run so the id tie-break is exact."""
    boundary = min(created for created, _ in rows)
    tied = _created_between(index, query, boundary, boundary)
    newer = [row for row in rows if row[0] > boundary]
    return newer + _all_rows(index, searcher, tied)


def _created_between(
    index: tantivy.Index, query: tantivy.Query, lowest: int | None, highest: int
) -> tantivy.Query:
    run = tantivy.Query.range_query(
        index.schema, "created_us", tantivy.FieldType.Integer, lowest, highest
    )
    return tantivy.Query.boolean_query([(Must, query), (Must, run)])


def _all_rows(
    index: tantivy.Index, searcher: tantivy.Searcher, query: tantivy.Query
) -> list[tuple[int, str]]:
    """(created_us, id) of every match: for runs of one created_at, which are small."""
    hits = searcher.search(
        query, max(_count(index, query), 1), count=False, order_by_field="created_us"
    ).hits
    return [(created, _stored_id(searcher, address)) for created, address in hits]


def _filter_query(index: tantivy.Index, memory_filter: MemoryFilter) -> tantivy.Query:
    return _all_of(index.schema, conditions_of(memory_filter))


def _all_of(schema: tantivy.Schema, conditions: Sequence[Condition]) -> tantivy.Query:
    clauses = [(Must, _tantivy_condition(schema, c)) for c in conditions]
    return tantivy.Query.boolean_query(clauses) if clauses else tantivy.Query.all_query()


def _tantivy_condition(schema: tantivy.Schema, condition: Condition) -> tantivy.Query:
    match condition:
        case Equals(field, value):
            return tantivy.Query.term_query(schema, field, value)
        case AnyOf(field, values):
            return tantivy.Query.term_set_query(schema, field, list(values))
        case After(field, moment):
            return tantivy.Query.range_query(
                schema, field, tantivy.FieldType.Float, moment, None, include_lower=False
            )
        case Between(field, lowest, highest):
            # Times are whole microseconds here (created_us, occurred_us): [lo, hi) as [lo, hi - 1].
            return tantivy.Query.range_query(
                schema,
                _MICROSECOND_FIELDS[field],
                tantivy.FieldType.Integer,
                None if lowest is None else _micros(lowest),
                None if highest is None else _micros(highest) - 1,
            )
        case Excludes(field, values):
            # A boolean query of MustNot alone matches nothing: exclude from everything.
            excluded = tantivy.Query.term_set_query(schema, field, list(values))
            everything = tantivy.Query.all_query()
            return tantivy.Query.boolean_query([(Must, everything), (MustNot, excluded)])
        case AnyGroup(groups):
            return tantivy.Query.boolean_query([(Should, _all_of(schema, g)) for g in groups])
    raise TypeError(f"unknown condition {condition!r}")


def _schema(tokenizer_name: str) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for field in _KEYWORD_FIELDS:
        builder.add_text_field(field, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("public", indexed=True, fast=True)
    builder.add_float_field("expires_at", indexed=True, fast=True)
    builder.add_integer_field("created_us", indexed=True, fast=True)
    builder.add_integer_field("occurred_us", indexed=True, fast=True)
    builder.add_text_field("body", tokenizer_name=tokenizer_name, index_option="position")
    return builder.build()


def _document(memory: Memory) -> tantivy.Document:
    fields = stored_fields(memory)
    doc = tantivy.Document()
    doc.add_text("id", memory.id)
    for field in _KEYWORD_FIELDS:
        for value in _as_list(fields.get(field)):
            doc.add_text(field, value)
    doc.add_integer("public", fields["public"])
    doc.add_float("expires_at", fields["expires_at"])
    doc.add_integer("created_us", _micros(epoch_seconds(memory.created_at)))
    doc.add_integer("occurred_us", _micros(epoch_seconds(memory.occurred)))
    doc.add_text("body", memory.body)
    return doc


def _micros(seconds: float) -> int:
    return round(seconds * 1_000_000)


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [str(value)]


def _stored_id(searcher: tantivy.Searcher, address: tantivy.DocAddress) -> str:
    return searcher.doc(address).get_first("id")


def _count(index: tantivy.Index, query: tantivy.Query) -> int:
    # tantivy panics on a limit of 0, so ask for one hit and read only the count.
    return index.searcher().search(query, 1, count=True).count
