"""The OpenSearch query DSL of the lexical lane: pure functions, no cluster."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memhive_adapters.lane_conditions import NEVER
from memhive_adapters.lexical import opensearch_queries as dsl
from memhive_domain.kinds import MemoryKind
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Scope, Visibility

from tests.integration.lanes.memories import a_memory

LIVE_AT = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_bare_filter_is_the_workspace_only() -> None:
    assert dsl.filter_clauses(MemoryFilter(workspace_id="w")) == [{"term": {"workspace_id": "w"}}]


def test_every_dimension_of_the_filter_becomes_a_clause() -> None:
    memory_filter = MemoryFilter(
        workspace_id="w",
        scope=Scope.PRODUCT,
        product_id="p",
        kinds=frozenset({MemoryKind.TODO, MemoryKind.FACT}),
        tags=frozenset({"b", "a"}),
        public_only=True,
        live_at=LIVE_AT,
    )

    assert dsl.filter_clauses(memory_filter) == [
        {"term": {"workspace_id": "w"}},
        {"term": {"scope": "product"}},
        {"term": {"product_id": "p"}},
        {"terms": {"kind": ["fact", "todo"]}},
        {"terms": {"tags": ["a", "b"]}},
        {"term": {"public": 1}},
        {"range": {"expires_at": {"gt": LIVE_AT.timestamp()}}},
    ]


def test_search_body_matches_text_without_parsing_and_filters_without_scoring() -> None:
    body = dsl.search_body("AND (foo: *?", MemoryFilter(workspace_id="w"), 7)

    assert body["size"] == 7
    assert body["query"]["bool"]["must"] == [{"match": {"body": {"query": "AND (foo: *?"}}}]
    assert body["query"]["bool"]["filter"] == [{"term": {"workspace_id": "w"}}]
    assert "query_string" not in str(body)


def test_listing_is_newest_first_then_id_descending_with_paging() -> None:
    body = dsl.listing_body(MemoryFilter(workspace_id="w"), offset=20, limit=10)

    assert body["sort"] == [{"created_at": "desc"}, {"id": "desc"}]
    assert (body["from"], body["size"]) == (20, 10)
    assert body["query"] == {"bool": {"filter": [{"term": {"workspace_id": "w"}}]}}


def test_document_carries_flags_as_integers_and_no_expiry_as_never() -> None:
    memory = a_memory("hello", tags=("x",), visibility=Visibility.PUBLIC)

    document = dsl.document_of(memory)

    assert document["public"] == 1
    assert document["expires_at"] == NEVER
    assert document["tags"] == ["x"]
    assert "product_id" not in document
    assert document["body"] == "hello" and document["id"] == memory.id


def test_bulk_indexes_live_memories_and_deletes_forgotten_ones() -> None:
    live, gone = a_memory("kept"), replace(a_memory("gone"), forgotten=True)

    actions = dsl.bulk_actions("idx", [live, gone])

    assert actions == [
        {"index": {"_index": "idx", "_id": live.id}},
        dsl.document_of(live),
        {"delete": {"_index": "idx", "_id": gone.id}},
    ]


def test_ids_in_workspace_and_workspace_counts() -> None:
    assert dsl.ids_in_workspace("w", ["a", "b"]) == {
        "bool": {"filter": [{"terms": {"id": ["a", "b"]}}, {"term": {"workspace_id": "w"}}]}
    }
    assert dsl.workspace_query(None) == {"match_all": {}}
    assert dsl.workspace_query("w") == {"bool": {"filter": [{"term": {"workspace_id": "w"}}]}}


def test_queries_drop_question_words_and_documents_keep_them() -> None:
    analysis = dsl.INDEX_BODY["settings"]["analysis"]
    body = dsl.INDEX_BODY["mappings"]["properties"]["body"]
    assert (body["analyzer"], body["search_analyzer"]) == ("memhive_body", "memhive_question")
    assert "memhive_question_words" in analysis["analyzer"]["memhive_question"]["filter"]
    assert "memhive_question_words" not in analysis["analyzer"]["memhive_body"]["filter"]
    assert "when" in analysis["filter"]["memhive_question_words"]["stopwords"]


def test_a_query_of_only_question_words_is_analysed_like_documents() -> None:
    plain = dsl.search_body("What did Caroline do?", MemoryFilter("ws-1"), 5)
    only_question_words = dsl.search_body("what did they do?", MemoryFilter("ws-1"), 5)
    assert plain["query"]["bool"]["must"][0]["match"]["body"] == {"query": "What did Caroline do?"}
    assert (
        only_question_words["query"]["bool"]["must"][0]["match"]["body"]["analyzer"]
        == "memhive_body"
    )
