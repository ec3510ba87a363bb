"""The LexicalIndex contract, run against every backend (see conftest.py)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta

import pytest
from memhive_domain.listing import ListPosition
from memhive_domain.recall import MemoryFilter

from tests.integration.lanes.conftest import Backend
from tests.integration.lanes.filter_cases import FILTER_CASES, WORD, FilterCase, population
from tests.integration.lanes.memories import NOW, a_memory

ANYWHERE = MemoryFilter(workspace_id="ws-1")
NASTY_QUERIES = [
    "AND (foo:",
    "*?",
    'body:"unterminated',
    "foo~2^3 OR -bar",
    "[1 TO *]",
    "\\",
    "   ",
    "{}()[]^~*?:\\/",
    "🙂 ünïcödé",
]


async def ids_of(hits) -> list[str]:
    return [h.memory_id for h in hits]


async def test_search_ranks_by_relevance_best_first(lexical_index) -> None:
    both = a_memory("deploy the billing service on friday with the billing team")
    one = a_memory("the billing report is late")
    none = a_memory("lunch menu for the week")
    await lexical_index.upsert([none, one, both])

    hits = await lexical_index.search("billing friday", ANYWHERE, 10)

    assert [h.memory_id for h in hits] == [both.id, one.id]
    assert hits[0].score > hits[1].score > 0


async def test_search_matches_word_forms(lexical_index) -> None:
    memory = a_memory("She was running to the stations every morning")
    await lexical_index.upsert([memory])

    hits = await lexical_index.search("runs station", ANYWHERE, 5)

    assert [h.memory_id for h in hits] == [memory.id]


async def test_question_words_do_not_match_on_their_own(lexical_index) -> None:
    function_words = a_memory("what did they do when it was there")
    about_caroline = a_memory("Caroline joined a support group")
    await lexical_index.upsert([function_words, about_caroline])

    hits = await lexical_index.search("What did Caroline do?", ANYWHERE, 10)

    assert [h.memory_id for h in hits] == [about_caroline.id]


async def test_a_query_of_only_question_words_still_searches(lexical_index) -> None:
    function_words = a_memory("what did they do when it was there")
    await lexical_index.upsert([function_words, a_memory("Caroline joined a support group")])

    hits = await lexical_index.search("what did they do?", ANYWHERE, 10)

    assert [h.memory_id for h in hits] == [function_words.id]


async def test_search_returns_at_most_limit(lexical_index) -> None:
    await lexical_index.upsert([a_memory(f"note {i} about {WORD}") for i in range(6)])

    assert len(await lexical_index.search(WORD, ANYWHERE, 4)) == 4


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
async def test_search_applies_the_whole_filter(lexical_index, case: FilterCase) -> None:
    memories = population()
    await lexical_index.upsert(list(memories.values()))
    names = {m.id: name for name, m in memories.items()}

    hits = await lexical_index.search(WORD, case.memory_filter, 50)

    assert {names[h.memory_id] for h in hits} == case.expected


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
async def test_list_ids_applies_the_whole_filter(lexical_index, case: FilterCase) -> None:
    memories = population()
    await lexical_index.upsert(list(memories.values()))
    names = {m.id: name for name, m in memories.items()}

    listed = [p.memory_id for p in await lexical_index.list_ids(case.memory_filter, None, 50)]

    assert {names[i] for i in listed} == case.expected
    assert len(listed) == len(case.expected)


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
async def test_count_matching_applies_the_whole_filter(lexical_index, case: FilterCase) -> None:
    await lexical_index.upsert(list(population().values()))

    assert await lexical_index.count_matching(case.memory_filter) == len(case.expected)


async def test_a_small_scope_fills_its_top_k_among_many_better_outsiders(lexical_index) -> None:
    outsiders = [a_memory(f"{WORD} {WORD} {WORD} {i}", product_id="big") for i in range(300)]
    insiders = [
        a_memory(f"a long note that mentions the {WORD} once, {i}", product_id="small")
        for i in range(4)
    ]
    await lexical_index.upsert(outsiders + insiders)

    scoped = MemoryFilter(workspace_id="ws-1", product_id="small")
    hits = await lexical_index.search(WORD, scoped, 3)

    assert len(hits) == 3
    assert {h.memory_id for h in hits} <= {m.id for m in insiders}


async def test_upsert_twice_replaces_the_body(lexical_index) -> None:
    memory = a_memory("the office is in lisbon")
    await lexical_index.upsert([memory])
    await lexical_index.upsert([replace(memory, body="the office moved to porto", revision=2)])

    assert await lexical_index.search("lisbon", ANYWHERE, 5) == []
    assert await ids_of(await lexical_index.search("porto", ANYWHERE, 5)) == [memory.id]
    assert await lexical_index.count() == 1


async def test_upserting_a_forgotten_memory_removes_it(lexical_index) -> None:
    memory = a_memory("a secret to forget")
    await lexical_index.upsert([memory])
    await lexical_index.upsert([replace(memory, forgotten=True)])

    assert await lexical_index.search("secret", ANYWHERE, 5) == []
    assert await lexical_index.list_ids(ANYWHERE, None, 10) == []


async def test_delete_removes_only_that_workspace_and_ignores_unknown_ids(lexical_index) -> None:
    kept, doomed = a_memory(f"kept {WORD}"), a_memory(f"doomed {WORD}")
    foreign = a_memory(f"foreign {WORD}", workspace_id="ws-2")
    await lexical_index.upsert([kept, doomed, foreign])

    await lexical_index.delete("ws-1", [doomed.id, foreign.id, str(uuid.uuid4())])

    assert await ids_of(await lexical_index.search(WORD, ANYWHERE, 10)) == [kept.id]
    assert await lexical_index.present("ws-2", [foreign.id]) == {foreign.id}
    await lexical_index.delete("ws-1", [])


async def test_list_ids_newest_first_then_id_descending_in_pages(lexical_index) -> None:
    stamps = [NOW - timedelta(minutes=m) for m in (5, 1, 3, 3, 3, 1, 9)]
    memories = [a_memory(f"entry {i}", created_at=t) for i, t in enumerate(stamps)]
    await lexical_index.upsert(memories)
    expected = [m.id for m in sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)]

    pages, after = [], None
    for _ in range(4):
        page = await lexical_index.list_ids(ANYWHERE, after, 2)
        pages.append(page)
        after = page[-1]

    assert [len(p) for p in pages] == [2, 2, 2, 1]
    assert [p.memory_id for page in pages for p in page] == expected
    by_id = {m.id: m.created_at for m in memories}
    assert all(p.created_at == by_id[p.memory_id] for page in pages for p in page)
    assert await lexical_index.list_ids(ANYWHERE, pages[-1][-1], 5) == []


async def test_list_ids_resumes_inside_a_run_of_equal_created_at(lexical_index) -> None:
    run = [a_memory(f"same moment {i}", created_at=NOW) for i in range(5)]
    older = a_memory("a minute before", created_at=NOW - timedelta(minutes=1))
    await lexical_index.upsert([*run, older])
    ids = sorted((m.id for m in run), reverse=True)

    resumed = await lexical_index.list_ids(ANYWHERE, ListPosition(NOW, ids[1]), 10)
    between = await lexical_index.list_ids(ANYWHERE, ListPosition(NOW, "0"), 10)
    far_future = ListPosition(NOW + timedelta(days=3650), str(uuid.uuid4()))

    assert [p.memory_id for p in resumed] == [*ids[2:], older.id]
    assert [p.memory_id for p in between] == [older.id]  # a forged position: no crash
    assert len(await lexical_index.list_ids(ANYWHERE, far_future, 10)) == 6


async def test_present_answers_for_one_workspace(lexical_index) -> None:
    mine, theirs = a_memory(), a_memory(workspace_id="ws-2")
    await lexical_index.upsert([mine, theirs])
    unknown = str(uuid.uuid4())

    assert await lexical_index.present("ws-1", [mine.id, theirs.id, unknown]) == {mine.id}
    assert await lexical_index.present("ws-1", []) == set()


async def test_count_all_or_one_workspace(lexical_index) -> None:
    await lexical_index.upsert([a_memory(), a_memory(), a_memory(workspace_id="ws-2")])

    assert await lexical_index.count() == 3
    assert await lexical_index.count("ws-1") == 2
    assert await lexical_index.count("ws-3") == 0


@pytest.mark.parametrize("text", NASTY_QUERIES)
async def test_query_syntax_is_just_text(lexical_index, text: str) -> None:
    target = a_memory("foo and bar met at the harbour")
    await lexical_index.upsert([target, a_memory("nothing in common")])

    hits = await lexical_index.search(text, ANYWHERE, 5)

    expected = [target.id] if "foo" in text else []
    assert [h.memory_id for h in hits] == expected


async def test_data_survives_close_and_reopen(lexical_backend: Backend) -> None:
    first = await lexical_backend.open()
    memory = a_memory("the archive lives in the basement")
    await first.upsert([memory])
    await first.close()

    second = await lexical_backend.open()

    assert await ids_of(await second.search("archive", ANYWHERE, 5)) == [memory.id]
    assert [p.memory_id for p in await second.list_ids(ANYWHERE, None, 5)] == [memory.id]


async def test_drop_deletes_the_index(
    lexical_backend: Backend,
) -> None:
    first = await lexical_backend.open()
    await first.upsert([a_memory("the archive lives in the basement")])

    await first.drop()
    again = await lexical_backend.open()  # the same name: a new, empty index

    assert await again.count() == 0
    assert await again.search("archive", ANYWHERE, 5) == []
