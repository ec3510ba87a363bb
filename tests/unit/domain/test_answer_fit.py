from datetime import UTC, datetime

from memhive_domain.answer_fit import asks_when, favour_fitting
from memhive_domain.fusion import FusedHit
from memhive_domain.mentions import mentions_of

SAID = datetime(2023, 5, 8, tzinfo=UTC)


def mentions(**bodies: str):
    return {i: mentions_of(b, SAID) for i, b in bodies.items()}


def test_what_a_named_person_says_rises_above_a_reply_that_only_addresses_them() -> None:
    said = mentions(
        reply="Caroline: Thanks, Melanie! Running sounds great for de-stressing.",
        own="Melanie: Pottery is like therapy for me.",
    )
    hits = [FusedHit("reply", 1.0), FusedHit("own", 0.8)]

    ranked = favour_fitting(hits, said, names=frozenset({"melanie"}), wants_time=False)

    assert [h.memory_id for h in ranked] == ["own", "reply"]
    assert ranked[0].score == 0.8 * 1.5


def test_a_when_question_favours_a_memory_that_states_a_time() -> None:
    said = mentions(
        undated="Caroline: The support group was so powerful.",
        dated="Caroline: I went to the support group yesterday.",
    )
    hits = [FusedHit("undated", 1.0), FusedHit("dated", 0.6)]

    asked_when = favour_fitting(hits, said, names=frozenset(), wants_time=True)
    asked_what = favour_fitting(hits, said, names=frozenset(), wants_time=False)

    assert [h.memory_id for h in asked_when] == ["dated", "undated"]
    assert asked_what == hits


def test_hits_without_mentions_and_zero_boosts_are_left_alone() -> None:
    hits = [FusedHit("a", 1.0), FusedHit("b", 0.5)]
    said = mentions(b="Melanie: I went yesterday.")

    assert favour_fitting(hits, {}, names=frozenset({"melanie"}), wants_time=True) == hits
    off = favour_fitting(
        hits, said, names=frozenset({"melanie"}), wants_time=True, subject_boost=0, dated_boost=0
    )
    assert off == hits


def test_questions_asking_for_a_time() -> None:
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("What year did Jon start?")
    assert not asks_when("What did Caroline do when she moved?")


def test_a_memory_that_asks_gives_way_to_one_that_tells() -> None:
    said = mentions(
        asks="Caroline: What pets do you have, Mel?",
        tells="Melanie: Two cats, Luna and Oliver.",
    )
    hits = [FusedHit("asks", 1.0), FusedHit("tells", 0.8)]

    ranked = favour_fitting(hits, said, names=frozenset(), wants_time=False)

    assert [h.memory_id for h in ranked] == ["tells", "asks"]
    assert ranked[1].score == 1.0 * 0.7
    unpenalised = favour_fitting(
        hits, said, names=frozenset(), wants_time=False, question_penalty=0
    )
    assert unpenalised == hits
