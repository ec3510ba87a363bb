from dataclasses import replace
from datetime import UTC, datetime

from memhive_domain.fusion import FusedHit
from memhive_domain.ranking import in_context
from memhive_domain.sources import Source
from memhive_domain.time_range import TimeRange

from tests.unit.domain.memory_factory import a_memory

AT = datetime(2026, 1, 5, tzinfo=UTC)


def ranked(hits, records, **rules) -> list[str]:
    rules = {"named_times": (), "neighbour_share": 0.5, "time_boost": 2.0} | rules
    return [h.memory_id for h in in_context(hits, records, **rules)]


def test_a_turn_next_to_the_best_match_comes_before_an_unrelated_one() -> None:
    records = {
        "question": a_memory("question", at=AT, source_ref="chat-1:4"),
        "answer": a_memory("answer", at=AT, source_ref="chat-1:5"),
        "other": a_memory("other", at=AT, source_ref="chat-2:9"),
    }
    hits = [FusedHit("question", 1.0), FusedHit("other", 0.5), FusedHit("answer", 0.3)]

    assert ranked(hits, records) == ["question", "answer", "other"]


def test_upstream_refs_are_entities_not_neighbours() -> None:
    records = {
        "issue 41": a_memory("issue 41", at=AT, source=Source.ISSUE, source_ref="issue:41"),
        "issue 42": a_memory("issue 42", at=AT, source=Source.ISSUE, source_ref="issue:42"),
        "other": a_memory("other", at=AT, source_ref="notes"),
    }
    hits = [FusedHit("issue 41", 1.0), FusedHit("other", 0.5), FusedHit("issue 42", 0.3)]

    assert ranked(hits, records) == ["issue 41", "other", "issue 42"]


def test_a_memory_of_the_named_time_rises() -> None:
    records = {
        "january": a_memory("january", at=AT),
        "june": replace(a_memory("june", at=AT), occurred_at=datetime(2025, 6, 3, tzinfo=UTC)),
    }
    hits = [FusedHit("january", 1.0), FusedHit("june", 0.5)]
    june = TimeRange(datetime(2025, 6, 1, tzinfo=UTC), datetime(2025, 7, 1, tzinfo=UTC))

    assert ranked(hits, records, named_times=(june,)) == ["june", "january"]
    assert ranked(hits, records, named_times=(june,), time_boost=0) == ["january", "june"]
