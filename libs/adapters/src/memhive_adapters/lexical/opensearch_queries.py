"""The OpenSearch documents, mapping and query DSL of the lexical lane, as pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.question_words import QUESTION_STOPWORDS, has_content_words
from memhive_domain.recall import MemoryFilter

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

Json = dict[str, Any]

_KEYWORD = {"type": "keyword"}
# The same choices the tantivy lane made by measurement: documents are lowercased and
# stemmed with every word kept; queries also drop English question words.
_ANALYSIS: Json = {
    "filter": {
        "memhive_question_words": {"type": "stop", "stopwords": list(QUESTION_STOPWORDS)},
        "memhive_english_stemmer": {"type": "stemmer", "language": "english"},
    },
    "analyzer": {
        "memhive_body": {
            "tokenizer": "standard",
            "filter": ["lowercase", "memhive_english_stemmer"],
        },
        "memhive_question": {
            "tokenizer": "standard",
            "filter": ["lowercase", "memhive_question_words", "memhive_english_stemmer"],
        },
    },
}
INDEX_BODY: Json = {
    "settings": {"index": {"number_of_shards": 1}, "analysis": _ANALYSIS},
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "id": _KEYWORD,
            "workspace_id": _KEYWORD,
            "scope": _KEYWORD,
            "product_id": _KEYWORD,
            "kind": _KEYWORD,
            "tags": _KEYWORD,
            "public": {"type": "integer"},
            "expires_at": {"type": "double"},
            "created_at": {"type": "double"},
            "occurred_at": {"type": "double"},
            "body": {
                "type": "text",
                "analyzer": "memhive_body",
                "search_analyzer": "memhive_question",
            },
        },
    },
}


def document_of(memory: Memory) -> Json:
    return {"id": memory.id, "body": memory.body, **stored_fields(memory)}


def bulk_actions(index: str, memories: Sequence[Memory]) -> list[Json]:
    """Index live memories (replacing any earlier version), delete forgotten ones."""
    actions: list[Json] = []
    for memory in memories:
        if memory.forgotten:
            actions.append({"delete": {"_index": index, "_id": memory.id}})
        else:
            actions += [{"index": {"_index": index, "_id": memory.id}}, document_of(memory)]
    return actions


def filter_clauses(memory_filter: MemoryFilter) -> list[Json]:
    return [_clause(c) for c in conditions_of(memory_filter)]


def search_body(text: str, memory_filter: MemoryFilter, limit: int) -> Json:
    """A `match` query analyses the text and never parses it as query syntax."""
    return {
        "size": limit,
        "_source": False,
        "query": {
            "bool": {
                "must": [{"match": {"body": _match(text)}}],
                "filter": filter_clauses(memory_filter),
            }
        },
    }


def _match(text: str) -> Json:
    """A query of question words only ("what did they do?") is searched unfiltered."""
    if has_content_words(text):
        return {"query": text}
    return {"query": text, "analyzer": "memhive_body"}


def listing_body(memory_filter: MemoryFilter, after: ListPosition | None, limit: int) -> Json:
    """Keyset paging with search_after on the same (created_at, id) the tantivy lane uses."""
    body: Json = {
        "size": limit,
        "_source": False,
        "query": {"bool": {"filter": filter_clauses(memory_filter)}},
        "sort": [{"created_at": "desc"}, {"id": "desc"}],
    }
    if after is not None:
        body["search_after"] = [epoch_seconds(after.created_at), after.memory_id]
    return body


def listed_position(hit: Json) -> ListPosition:
    created_at, memory_id = hit["sort"]
    return ListPosition.at(round(float(created_at) * 1_000_000), memory_id)


def ids_in_workspace(workspace_id: str, memory_ids: Sequence[str]) -> Json:
    return {
        "bool": {
            "filter": [
                {"terms": {"id": list(memory_ids)}},
                {"term": {"workspace_id": workspace_id}},
            ]
        }
    }


def workspace_query(workspace_id: str | None) -> Json:
    if workspace_id is None:
        return {"match_all": {}}
    return {"bool": {"filter": [{"term": {"workspace_id": workspace_id}}]}}


def _clause(condition: Condition) -> Json:
    match condition:
        case Equals(field, value):
            return {"term": {field: value}}
        case AnyOf(field, values):
            return {"terms": {field: list(values)}}
        case After(field, moment):
            return {"range": {field: {"gt": moment}}}
        case Between(field, lowest, highest):
            bounds = {"gte": lowest, "lt": highest}
            return {"range": {field: {k: v for k, v in bounds.items() if v is not None}}}
        case Excludes(field, values):
            return {"bool": {"must_not": [{"terms": {field: list(values)}}]}}
        case AnyGroup(groups):
            alternatives = [{"bool": {"filter": [_clause(c) for c in g]}} for g in groups]
            return {"bool": {"should": alternatives, "minimum_should_match": 1}}
    raise TypeError(f"unknown condition {condition!r}")
