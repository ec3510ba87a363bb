from datetime import UTC, datetime

import pytest
from memhive_domain.following import MAX_FOLLOWED, names_to_follow, with_followed
from memhive_domain.mentions import mentions_of

SAID = datetime(2023, 5, 8, tzinfo=UTC)


def said(**bodies: str):
    return {i: mentions_of(b, SAID) for i, b in bodies.items()}


def test_the_top_hits_names_are_followed_less_the_asked_and_the_speakers() -> None:
    mentions = said(
        first="Jon: I took a trip to see Rome with Gina last week.",
        second="Gina: We loved Paris, says Jon.",
        third="Jon: I met Anna at the studio.",
        fourth="Gina: Lisbon next!",
    )

    followed = names_to_follow(["first", "second", "third", "fourth"], mentions, frozenset({"jon"}))

    assert followed == ("rome", "paris", "anna")  # Gina speaks, Jon was asked, Lisbon is 4th


def test_nothing_to_follow_without_names_and_a_bounded_query() -> None:
    assert names_to_follow(["a"], said(a="Jon: I love dancing."), frozenset()) == ()
    many = said(a="Ann: " + " ".join(f"I met {chr(65 + i)}ob{chr(97 + i)}." for i in range(20)))
    assert len(names_to_follow(["a"], many, frozenset())) == MAX_FOLLOWED


def test_what_the_names_found_joins_the_lane_below_its_best() -> None:
    lane = [("a", 9.0), ("b", 4.0)]
    found = [("c", 20.0), ("b", 7.0), ("d", 2.0)]  # a rare name scores high on its own

    joined = with_followed(lane, found, share=0.8)

    assert [i for i, _ in joined] == ["a", "c", "b", "d"]
    assert [s for _, s in joined] == pytest.approx([9.0, 7.2, 4.0, 0.72])
    assert [s for _, s in with_followed(lane, found, share=0.5)] == pytest.approx(
        [9.0, 4.5, 4.0, 0.45]
    )
    assert with_followed([], found) == []  # it extends a lane, never stands in for one
    assert with_followed(lane, []) == lane
