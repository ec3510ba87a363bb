from memhive_domain.fusion import FusedHit
from memhive_domain.neighbours import thread_position, with_neighbour_context


def test_a_ref_ending_in_a_number_has_a_place_in_its_thread() -> None:
    assert thread_position("chat-7:D3:14") == ("chat-7:D3:", 14)
    assert thread_position("github:org/repo#12") == ("github:org/repo#", 12)
    assert thread_position("notes") is None
    assert thread_position(None) is None


def test_a_turn_next_to_a_strong_match_rises() -> None:
    hits = [FusedHit("question", 1.0), FusedHit("other", 0.45), FusedHit("answer", 0.3)]
    refs = {"question": "chat:D1:4", "answer": "chat:D1:5", "other": "chat:D2:9"}

    ranked = with_neighbour_context(hits, refs, share=0.5)

    assert [h.memory_id for h in ranked] == ["question", "answer", "other"]
    assert ranked[1].score == 0.3 + 0.5 * 1.0
    assert ranked[0].score == 1.0 + 0.5 * 0.3


def test_two_places_away_lends_half() -> None:
    hits = [FusedHit("a", 1.0), FusedHit("b", 0.2)]
    refs = {"a": "chat:D1:4", "b": "chat:D1:6"}

    ranked = with_neighbour_context(hits, refs, share=0.5)

    assert [h.score for h in ranked] == [1.0 + 0.5 * 0.5 * 0.2, 0.2 + 0.5 * 0.5 * 1.0]


def test_only_nearby_turns_of_the_same_thread_are_neighbours() -> None:
    hits = [FusedHit("a", 1.0), FusedHit("b", 0.2), FusedHit("c", 0.2), FusedHit("d", 0.2)]
    refs = {"a": "chat:D1:4", "b": "chat:D1:7", "c": "chat:D2:5", "d": None}

    ranked = with_neighbour_context(hits, refs, share=0.5)

    assert [h.score for h in ranked] == [1.0, 0.2, 0.2, 0.2]


def test_share_zero_changes_nothing() -> None:
    hits = [FusedHit("a", 1.0), FusedHit("b", 0.2)]
    assert with_neighbour_context(hits, {"a": "t:1", "b": "t:2"}, share=0) == hits


def test_the_reply_to_a_memory_that_asks_gets_more_of_its_score() -> None:
    hits = [FusedHit("asks", 1.0), FusedHit("reply", 0.3), FusedHit("before", 0.3)]
    refs = {"asks": "chat:D1:4", "reply": "chat:D1:5", "before": "chat:D1:3"}

    ranked = with_neighbour_context(hits, refs, share=0.5, asking={"asks"}, reply_share=0.7)

    scores = {h.memory_id: h.score for h in ranked}
    assert scores["reply"] == 0.3 + 0.7 * 1.0
    assert scores["before"] == 0.3 + 0.5 * 1.0  # the memory before a question gains as before
