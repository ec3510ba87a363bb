"""RecallMemories over fakes: fusion of both lanes, hydration from the record (the record is
the truth), supersession, and the hits recorded off the hot path."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta

import pytest
from memhive.v1 import events_pb2
from memhive_domain.confidence import calibration_for, query_coverage
from memhive_domain.memory import forget
from memhive_domain.recall import SelectionRequest
from memhive_ports import LaneHit
from memhive_query.use_cases.recall import RecallMemories, Reranking

from tests.fakes import (
    FakeEmbedder,
    FakeLexicalIndex,
    FakePublisher,
    FakeReranker,
    FakeStore,
    FakeTermWeights,
    FakeVectorIndex,
    FixedClock,
)
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public, updates


def hits(*pairs: tuple[int, float]) -> list[LaneHit]:
    return [LaneHit(mid(n), score) for n, score in pairs]


class Rig:
    def __init__(
        self,
        vector=(),
        lexical=(),
        publisher: FakePublisher | None = None,
        reranking: Reranking | None = None,
        embedder: Callable[[FakeStore], FakeEmbedder] = lambda _store: FakeEmbedder(),
    ) -> None:
        self.store, self.publisher = FakeStore(), publisher or FakePublisher()
        self.vector, self.lexical = FakeVectorIndex(hits(*vector)), FakeLexicalIndex(hits(*lexical))
        self.recall = RecallMemories(
            self.store, self.vector, self.lexical, embedder(self.store), self.publisher,
            FixedClock(NOW), lane_weights={"vector": 1.0, "lexical": 1.0},
            importance_influence=0.0, reranking=reranking,
        )  # fmt: skip

    async def ids(self, principal=MEMBER, query="release", **options) -> list[str]:
        found = await self.recall(principal, query, SelectionRequest(), 5, **options)
        await self.recall.drain()
        return [r.memory.id for r in found]


async def test_fuses_both_lanes_and_hydrates_from_the_record() -> None:
    rig = Rig(vector=[(1, 0.9), (2, 0.8), (3, 0.1)], lexical=[(3, 9.0), (1, 8.0), (9, 1.0)])
    for n in (1, 2, 3):
        rig.store.put(memory(n))
    # 1: best vector, second lexical; 3: best lexical, worst vector; 9 is in no record.
    assert await rig.ids() == [mid(1), mid(3), mid(2)]
    [(text, lexical_filter, candidates)] = rig.lexical.searches
    assert (text, candidates) == ("release", 15)  # 3 x the limit from each lane
    assert rig.vector.searches[0][0] == lexical_filter  # one filter pushed into both lanes


async def test_what_a_person_named_in_the_query_said_comes_before_a_reply_to_them() -> None:
    rig = Rig(lexical=[(1, 9.0), (2, 8.0), (3, 1.0)])
    rig.store.put(memory(1, body="Caroline: Thanks, Melanie! Pottery sounds fun."))
    rig.store.put(memory(2, body="Melanie: I signed up for a pottery class."))
    rig.store.put(memory(3, body="Caroline: I paint."))

    assert await rig.ids(query="What does Melanie do?") == [mid(2), mid(1), mid(3)]
    assert await rig.ids(query="What does Caroline do?") == [mid(1), mid(2), mid(3)]


async def test_what_the_best_hits_name_is_searched_once_more() -> None:
    rig = Rig(lexical=[(1, 9.0), (3, 2.0)])
    rig.lexical.by_text["rome"] = hits((2, 5.0))
    rig.store.put(memory(1, body="Jon: I took a short trip to Rome last week."))
    rig.store.put(memory(2, body="Jon: The Colosseum at night, wow."))
    rig.store.put(memory(3, body="Gina: Cities are fun."))

    found = await rig.ids(query="Which cities has Jon visited?")

    assert [text for text, _, _ in rig.lexical.searches] == [
        "Which cities has Jon visited?",
        "rome",
    ]
    assert mid(2) in found
    assert found[0] == mid(1)


async def test_a_forgotten_memorys_names_are_not_followed() -> None:
    rig = Rig(lexical=[(1, 9.0), (2, 3.0)])  # the lane has not caught up with the forget
    rig.store.put(forget(memory(1, body="Jon: I met Rosa at the clinic."), now=NOW))
    rig.store.put(memory(2, body="Jon: Busy week."))

    assert await rig.ids(query="Who did Jon meet?") == [mid(2)]
    assert len(rig.lexical.searches) == 1


async def test_following_never_stands_in_for_an_empty_bm25_lane() -> None:
    rig = Rig(vector=[(1, 0.9), (2, 0.5)])  # no word of the query in any memory
    rig.lexical.by_text["lisbon"] = hits((2, 5.0))
    rig.store.put(memory(1, body="is vegetarian and allergic to peanuts"))
    rig.store.put(memory(2, body="lives in Lisbon and works remotely"))

    assert await rig.ids(query="what does alice eat?") == [mid(1), mid(2)]
    assert len(rig.lexical.searches) == 1


async def test_nothing_is_followed_when_the_best_hits_name_no_one_new() -> None:
    rig = Rig(lexical=[(1, 9.0)])
    rig.store.put(memory(1, body="Jon: I love dancing."))

    assert await rig.ids(query="What does Jon love?") == [mid(1)]
    assert len(rig.lexical.searches) == 1


# Lexical hits 1..4 and their bodies: BM25 favours 1, the answer is 3.
MUSIC_HITS = [(1, 9.0), (2, 8.5), (3, 8.8), (4, 1.0)]
MUSIC_BODIES = (
    "Mel: Music night!",
    "Mel: Music is my escape.",
    "Mel: I play clarinet, violin.",
    "Hi",
)


async def test_a_reranker_lifts_the_candidate_it_judges_the_answer() -> None:
    reranker = FakeReranker(frozenset({"clarinet", "violin"}))
    lexical, bodies = MUSIC_HITS, MUSIC_BODIES
    plain, reranked = Rig(lexical=lexical), Rig(lexical=lexical, reranking=Reranking(reranker))
    for rig in (plain, reranked):
        for n, body in enumerate(bodies, start=1):
            rig.store.put(memory(n, body=body))

    assert (await plain.ids(query="What music does Mel play?"))[0] == mid(1)
    assert (await reranked.ids(query="What music does Mel play?"))[0] == mid(3)
    assert sorted(reranker.read) == sorted(bodies)  # each body read once, over both passes


async def test_a_reranker_reads_only_the_best_candidates_the_caller_may_get() -> None:
    reranker = FakeReranker(frozenset({"secret"}))
    rig = Rig(lexical=[(1, 9.0), (2, 8.0), (3, 7.0)], reranking=Reranking(reranker, candidates=2))
    rig.store.put(forget(memory(1, body="a forgotten secret"), now=NOW))
    rig.store.put(memory(2, body="release notes"))
    rig.store.put(memory(3, body="release secret plan"))

    assert await rig.ids() == [mid(2), mid(3)]
    assert reranker.read == ["release notes"]  # 3 is past the best 2, 1 is forgotten


async def test_stored_document_terms_score_as_the_reranker_would_and_spare_its_reads() -> None:
    favoured = frozenset({"clarinet", "violin"})
    lexical, bodies = MUSIC_HITS, MUSIC_BODIES
    reading, terms = FakeReranker(favoured), FakeTermWeights(favoured)
    plain = Rig(lexical=lexical, reranking=Reranking(FakeReranker(favoured)))
    stored = Rig(lexical=lexical, reranking=Reranking(reading, terms=terms))
    for rig in (plain, stored):
        for n, body in enumerate(bodies, start=1):
            rig.store.put(memory(n, body=body))
    for n in (1, 3):  # kept when indexed; 2 and 4 were indexed before the option was on
        [kept] = await terms.document_terms([bodies[n - 1]])
        stored.vector.terms[(MEMBER.workspace_id, mid(n))] = kept

    query = "What music does Mel play?"
    expected = await plain.recall(MEMBER, query, SelectionRequest(), 5)
    found = await stored.recall(MEMBER, query, SelectionRequest(), 5)

    assert [(r.memory.id, r.lane_scores) for r in found] == [
        (r.memory.id, r.lane_scores) for r in expected
    ]
    assert found[0].memory.id == mid(3)
    assert sorted(reading.read) == sorted([bodies[1], bodies[3]])  # only those without terms
    assert terms.queries == [query]  # the query's terms once per recall
    assert sorted(stored.vector.terms_reads[0]) == [mid(1), mid(2), mid(3), mid(4)]  # in one read


async def test_the_query_is_weighed_on_its_candidates_words_alone_once_per_word() -> None:
    terms = FakeTermWeights(frozenset({"clarinet", "drums", "violin"}))  # ids 0, 1, 2
    rig = Rig(lexical=MUSIC_HITS, reranking=Reranking(FakeReranker(), terms=terms))
    for n, body in enumerate(MUSIC_BODIES, start=1):
        rig.store.put(memory(n, body=body))
        [kept] = await terms.document_terms([body])
        rig.vector.terms[(MEMBER.workspace_id, mid(n))] = kept

    assert (await rig.ids(query="What music does Mel play?"))[0] == mid(3)
    assert terms.weighed == [{0, 2}]  # clarinet and violin: no candidate holds drums


async def test_the_querys_model_pass_starts_before_the_lanes_search() -> None:
    terms = FakeTermWeights(frozenset({"clarinet", "violin"}))
    rig = Rig(lexical=MUSIC_HITS, reranking=Reranking(FakeReranker(), terms=terms))
    lanes_asked_at_read: list[int] = []
    read_query = terms.read_query

    async def noting(text: str):
        lanes_asked_at_read.append(len(rig.vector.searches) + len(rig.lexical.searches))
        return await read_query(text)

    terms.read_query = noting  # type: ignore[method-assign]
    for n, body in enumerate(MUSIC_BODIES, start=1):
        rig.store.put(memory(n, body=body))
        [kept] = await terms.document_terms([body])
        rig.vector.terms[(MEMBER.workspace_id, mid(n))] = kept

    await rig.ids(query="What music does Mel play?")

    assert lanes_asked_at_read == [0]


async def test_a_query_pass_that_fails_where_no_candidate_has_terms_leaves_recall_alone() -> None:
    terms = FakeTermWeights(frozenset({"clarinet"}))

    async def failing(text: str):
        raise RuntimeError("the model is gone")

    terms.read_query = failing  # type: ignore[method-assign]
    rig = Rig(
        lexical=MUSIC_HITS, reranking=Reranking(FakeReranker(frozenset({"clarinet"})), terms=terms)
    )
    for n, body in enumerate(MUSIC_BODIES, start=1):
        rig.store.put(memory(n, body=body))  # none keeps terms: every body is read instead

    assert (await rig.ids(query="What music does Mel play?"))[0] == mid(3)


async def test_stored_terms_of_a_forgotten_memory_are_never_read() -> None:
    terms = FakeTermWeights(frozenset({"secret"}))
    rig = Rig(lexical=[(1, 9.0), (2, 8.0)], reranking=Reranking(FakeReranker(), terms=terms))
    rig.store.put(forget(memory(1, body="a forgotten secret"), now=NOW))
    rig.store.put(memory(2, body="release secret plan"))
    for n, body in ((1, "a forgotten secret"), (2, "release secret plan")):
        [kept] = await terms.document_terms([body])
        rig.vector.terms[(MEMBER.workspace_id, mid(n))] = kept

    assert await rig.ids() == [mid(2)]
    assert all(mid(1) not in ids for ids in rig.vector.terms_reads)


async def test_drops_what_is_forgotten_expired_or_not_visible() -> None:
    rig = Rig(lexical=[(1, 4.0), (2, 3.0), (3, 2.0), (4, 1.0)])
    rig.store.put(public(1))
    rig.store.put(forget(public(2), NOW - timedelta(days=1)))
    rig.store.put(public(3, expires_at=NOW - timedelta(seconds=1)))
    rig.store.put(memory(4))  # private
    assert await rig.ids(VIEWER) == [mid(1)]
    assert await rig.ids(MEMBER) == [mid(1), mid(4)]


async def test_a_stale_memory_gives_way_to_its_successor() -> None:
    old, new = memory(1, days_ago=20), memory(2, days_ago=1)
    rig = Rig(lexical=[(1, 5.0)])
    rig.store.put(old, (updates(new, old),))
    rig.store.put(new, (updates(new, old),))
    [head] = await rig.recall(MEMBER, "release", SelectionRequest(), 5)
    assert (head.memory.id, head.replaces) == (new.id, (old.id,))
    both = await rig.recall(MEMBER, "release", SelectionRequest(), 5, include_superseded=True)
    assert {(r.memory.id, r.superseded_by) for r in both} == {(new.id, None), (old.id, new.id)}


async def test_records_the_hits_in_the_background() -> None:
    rig = Rig(lexical=[(1, 1.0)])
    rig.store.put(memory(1))
    await rig.ids()
    [(subject, event, _)] = rig.publisher.sent
    assert subject == "memhive.activity.recalled.ws"
    assert isinstance(event, events_pb2.MemoriesRecalled)
    assert (list(event.memory_ids), event.query) == ([mid(1)], "release")


async def test_a_failed_hit_record_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    rig = Rig(lexical=[(1, 1.0)], publisher=FakePublisher(failure=ConnectionError("bus down")))
    rig.store.put(memory(1))
    with caplog.at_level(logging.WARNING, logger="memhive_query.use_cases.recall"):
        assert await rig.ids() == [mid(1)]
    [record] = caplog.records
    assert (
        "recording recall hits failed" in record.getMessage() and "bus down" in record.getMessage()
    )


class EncoderWaitingForRecords(FakeEmbedder):
    """Ends its pass only once `ids` have been read from `store`: a recall that read the
    lexical lane's records only after the query's encoder pass would never end."""

    def __init__(self, store: FakeStore, ids: list[str]) -> None:
        super().__init__()
        self._store, self._ids = store, set(ids)

    async def embed(self, texts):
        while not any(self._ids <= set(read) for read in self._store.reads):  # noqa: ASYNC110 - a fake's log
            await asyncio.sleep(0)
        return await super().embed(texts)


async def test_the_lexical_candidates_records_are_read_while_the_query_is_encoded() -> None:
    rig = Rig(
        vector=[(1, 0.9), (2, 0.8)],
        lexical=[(3, 9.0), (1, 8.0)],
        embedder=lambda store: EncoderWaitingForRecords(store, [mid(3), mid(1)]),
    )
    for n in (1, 2, 3):
        rig.store.put(memory(n))

    found = await asyncio.wait_for(rig.ids(), timeout=5)

    assert found == [mid(1), mid(3), mid(2)]
    # the vector lane's own candidates after, and no record read twice
    assert rig.store.reads == [[mid(3), mid(1)], [mid(2)]]


@pytest.mark.parametrize(
    "encoder",
    [
        "all-MiniLM-L6-v2",
        "all-MiniLM-L6-v2/int8-per-text-v1",
        "all-MiniLM-L6-v2/int8-per-text-v2",
    ],
)
async def test_confidence_reads_the_cosines_by_their_encoders_calibration(encoder: str) -> None:
    rig = Rig(vector=[(1, 0.42)], embedder=lambda _store: FakeEmbedder(model_name=encoder))
    rig.store.put(memory(1, body="The release train leaves on Tuesdays."))

    [found] = await rig.recall(MEMBER, "release day", SelectionRequest(), 5)

    expected = calibration_for(encoder).confidence(
        0.42, query_coverage("release day", found.memory.body)
    )
    assert found.confidence == pytest.approx(expected)


async def test_the_lane_balance_is_the_serving_encoder_s_own_unless_given() -> None:
    """Read per recall, like the calibration: a store migrating to another encoder is
    ranked with the new encoder's balance as soon as it serves, not after a restart."""
    embedder = FakeEmbedder("all-MiniLM-L6-v2/int8-per-text-v1")
    rig = Rig(
        vector=[(1, 0.9), (2, 0.1)],
        lexical=[(2, 9.0), (1, 5.0), (9, 1.0)],  # scaled: 2 -> 1, 1 -> 0.5
        embedder=lambda _store: embedder,
    )
    rig.recall = RecallMemories(
        rig.store, rig.vector, rig.lexical, embedder, rig.publisher, FixedClock(NOW),
        lane_weights={"vector": 1.0, "lexical": None}, importance_influence=0.0,
    )  # fmt: skip
    for n in (1, 2):
        rig.store.put(memory(n))
    assert await rig.ids() == [mid(2), mid(1)]  # MiniLM: BM25 x 3, 3 > 1 + 1.5
    embedder.model_name = "all-mpnet-base-v2"  # the migration swapped the serving encoder
    assert await rig.ids() == [mid(1), mid(2)]  # MPNet: x 1.25, 1.25 < 1 + 0.625
    given = Rig(vector=[(1, 0.9), (2, 0.1)], lexical=[(2, 9.0), (1, 5.0), (9, 1.0)])
    given.recall = RecallMemories(
        given.store, given.vector, given.lexical, embedder, given.publisher, FixedClock(NOW),
        lane_weights={"vector": 1.0, "lexical": 3.0}, importance_influence=0.0,
    )  # fmt: skip
    for n in (1, 2):
        given.store.put(memory(n))
    assert await given.ids() == [mid(2), mid(1)]  # a weight the settings give wins
