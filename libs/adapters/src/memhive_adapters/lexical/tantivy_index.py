"""LexicalIndex on tantivy, embedded in this process: BM25 over memory bodies."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import tantivy
from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports.lanes import LaneHit

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

_KEYWORD_FIELDS = ("workspace_id", "scope", "product_id", "kind", "tags")
_WRITER_HEAP_BYTES = 64_000_000
# A query term in more than this share of the documents is left out (informative_terms).
UBIQUITOUS_SHARE = 0.99
# Time conditions name the stored field; this index keeps them as integer microseconds.
_MICROSECOND_FIELDS = {"created_at": "created_us", "occurred_at": "occurred_us"}
# A change applied with the writer before a commit: (writer, index, *args).
_Change = Callable[..., None]
Must, MustNot, Should = tantivy.Occur.Must, tantivy.Occur.MustNot, tantivy.Occur.Should


class TantivyLexicalIndex:
    """BM25 over memory bodies in a tantivy index stored at `path`.

    One owning process per path (tantivy allows one writer per index, held from
    ensure_ready() until close()). Writes are serialised by an asyncio.Lock; each upsert or
    delete commits (an fsync, a few ms) and reloads the searcher, so it is searchable when
    it returns. Reads run in worker threads and may overlap with a write.
    `analyzer` names an entry of `ANALYZERS`; an index must be reopened with the analyzer
    it was built with.
    """

    def __init__(self, path: Path, analyzer: str = DEFAULT_ANALYZER) -> None:
        self._path = Path(path)
        self._analyzer_name = analyzer
        self._analyzer = ANALYZERS[analyzer]()
        self._query_analyzer = query_analyzer(analyzer)
        self._index: tantivy.Index | None = None
        self._writer: tantivy.IndexWriter | None = None
        self._write_lock = asyncio.Lock()

    async def ensure_ready(self) -> None:
        async with self._write_lock:
            if self._index is None:
                await asyncio.to_thread(self._open)

    async def upsert(self, memories: Sequence[Memory]) -> None:
        await self._write(self._replace, memories)

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if memory_ids:
            await self._write(self._delete_ids, workspace_id, memory_ids)

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        index = await self._ready()
        return await asyncio.to_thread(self._search, index, text, memory_filter, limit)

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        index = await self._ready()
        return await asyncio.to_thread(self._list_ids, index, memory_filter, after, limit)

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        index = await self._ready()
        query = self._ids_in_workspace(index, workspace_id, memory_ids)
        return set(await asyncio.to_thread(self._ids_matching, index, query, len(memory_ids)))

    async def count(self, workspace_id: str | None = None) -> int:
        index = await self._ready()
        if workspace_id is None:
            return index.searcher().num_docs
        query = tantivy.Query.term_query(index.schema, "workspace_id", workspace_id)
        return await asyncio.to_thread(_count, index, query)

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        index = await self._ready()
        return await asyncio.to_thread(_count, index, _filter_query(index, memory_filter))

    async def close(self) -> None:
        async with self._write_lock:
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

    @property
    def _tokenizer_name(self) -> str:
        return f"memhive_{self._analyzer_name}"

    async def _ready(self) -> tantivy.Index:
        if self._index is None:
            await self.ensure_ready()
        assert self._index is not None
        return self._index

    async def _write(self, change: _Change, *args: object) -> None:
        await self._ready()
        async with self._write_lock:
            await asyncio.to_thread(self._commit, change, *args)

    def _commit(self, change: _Change, *args: object) -> None:
        assert self._writer is not None and self._index is not None
        change(self._writer, self._index, *args)
        self._writer.commit()
        self._index.reload()

    @staticmethod
    def _replace(
        writer: tantivy.IndexWriter, index: tantivy.Index, memories: Sequence[Memory]
    ) -> None:
        for memory in memories:
            writer.delete_documents_by_term("id", memory.id)
            if not memory.forgotten:
                writer.add_document(_document(memory))

    def _delete_ids(
        self,
        writer: tantivy.IndexWriter,
        index: tantivy.Index,
        workspace_id: str,
        memory_ids: Sequence[str],
    ) -> None:
        writer.delete_documents_by_query(self._ids_in_workspace(index, workspace_id, memory_ids))

    # --- reading -----------------------------------------------------------------------

    def _search(
        self, index: tantivy.Index, text: str, memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        terms = sorted(set(self._query_analyzer.analyze(text) or self._analyzer.analyze(text)))
        if not terms or limit <= 0:
            return []
        searcher = index.searcher()
        matching = tantivy.Query.boolean_query(
            [
                (Should, tantivy.Query.term_query(index.schema, "body", t))
                for t in informative_terms(searcher, terms)
            ]
        )
        # The filter restricts but must not score: wrap it so BM25 of the body alone ranks.
        allowed = tantivy.Query.const_score_query(_filter_query(index, memory_filter), 0.0)
        query = tantivy.Query.boolean_query([(Must, matching), (Must, allowed)])
        hits = searcher.search(query, limit, count=False).hits
        return [LaneHit(_stored_id(searcher, address), score) for score, address in hits]

    def _list_ids(
        self,
        index: tantivy.Index,
        memory_filter: MemoryFilter,
        after: ListPosition | None,
        limit: int,
    ) -> list[ListPosition]:
        if limit <= 0:
            return []
        query = _filter_query(index, memory_filter)
        searcher = index.searcher()
        rows: list[tuple[int, str]] = []
        if after is not None:
            # The rest of the run at the position's own created_at (ids below it), then older.
            tied = _created_between(index, query, after.created_us, after.created_us)
            rows = [r for r in _all_rows(index, searcher, tied) if after.is_after(*r)]
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

    @staticmethod
    def _ids_in_workspace(
        index: tantivy.Index, workspace_id: str, memory_ids: Sequence[str]
    ) -> tantivy.Query:
        return tantivy.Query.boolean_query(
            [
                (Must, tantivy.Query.term_set_query(index.schema, "id", list(memory_ids))),
                (Must, tantivy.Query.term_query(index.schema, "workspace_id", workspace_id)),
            ]
        )


def informative_terms(searcher: tantivy.Searcher, terms: list[str]) -> list[str]:
    """The query's terms less those in nearly every document, unless nothing else is left.
    Such a term weighs next to nothing in BM25 (idf < 0.01 past 99% of the documents) but
    its postings span the whole index, and the filter makes tantivy score every document
    of a union: at 1M memories with one such term, 35-40 against 12 ms of CPU a search."""
    everywhere = UBIQUITOUS_SHARE * searcher.num_docs
    kept = [t for t in terms if searcher.doc_freq("body", t) <= everywhere]
    return kept or terms


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
