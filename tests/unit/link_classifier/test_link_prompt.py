from __future__ import annotations

import pytest
from memhive_domain.edges import EdgeKind
from memhive_link_classifier.link_prompt import link_question, proposals_from_answer
from memhive_ports import MalformedOutput

from tests.unit.link_classifier.fakes import memory

NEW = memory("new", "The iOS app now targets Swift 6", days=10)
OLDER = memory("older", "The iOS app targets Swift 5", days=1)
NEWER = memory("newer", "The iOS app targets Swift 7", days=20)
TOPIC = memory("topic", "The iOS app is built on Xcode Cloud", days=2)
NEIGHBOURS = [(OLDER, 0.86), (NEWER, 0.84), (TOPIC, 0.6)]


def link(number: int, relation: str, confidence: float = 0.8, rationale: str = "why") -> dict:
    return {
        "memory": number,
        "relation": relation,
        "confidence": confidence,
        "rationale": rationale,
    }


def test_the_question_numbers_each_neighbour_with_its_date() -> None:
    question = link_question(NEW, NEIGHBOURS)

    assert "NEW (saved 2026-03-11): The iOS app now targets Swift 6" in question
    assert "[1] (saved 2026-03-02): The iOS app targets Swift 5" in question
    assert "[3] (saved 2026-03-03): The iOS app is built on Xcode Cloud" in question
    assert "older" not in question  # ids are never shown: the model cannot invent one


def test_updates_and_contradicts_run_from_the_newer_memory_to_the_older() -> None:
    answer = {"links": [link(1, "updates"), link(2, "contradicts", 0.6), link(3, "related_to")]}

    proposals = proposals_from_answer(answer, NEW, NEIGHBOURS)

    assert [(p.src_id, p.dst_id, p.kind, p.weight) for p in proposals] == [
        ("new", "older", EdgeKind.UPDATES, 0.8),
        ("newer", "new", EdgeKind.CONTRADICTS, 0.6),
        ("new", "topic", EdgeKind.RELATED_TO, 0.8),
    ]


def test_none_and_unanswered_neighbours_give_no_edge() -> None:
    proposals = proposals_from_answer({"links": [link(2, "none")]}, NEW, NEIGHBOURS)

    assert proposals == []


def test_rationales_are_kept_to_one_line_within_the_limit() -> None:
    answer = {"links": [link(1, "updates", rationale="Swift\n5 -> 6 " + "x" * 600)]}

    [proposal] = proposals_from_answer(answer, NEW, NEIGHBOURS)

    assert proposal.rationale.startswith("Swift 5 -> 6 x")
    assert len(proposal.rationale) == 500


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({}, 'no "links" list'),
        ({"links": {"1": "updates"}}, 'no "links" list'),
        ({"links": ["updates"]}, r"links\[0\] is not an object"),
        (
            {"links": [link(4, "updates")]},
            r"links\[0\]\.memory must be a number from 1 to 3, got 4",
        ),
        ({"links": [link(0, "updates")]}, "from 1 to 3, got 0"),
        ({"links": [link(True, "updates")]}, "got True"),
        ({"links": [{**link(1, "x"), "memory": "1"}]}, "got '1'"),
        ({"links": [link(1, "replaces")]}, r"relation must be one of .* got 'replaces'"),
        ({"links": [link(1, "updates", 1.5)]}, "confidence must be from 0 to 1, got 1.5"),
        ({"links": [{"memory": 1, "relation": "updates"}]}, "confidence .* got None"),
        ({"links": [link(1, "updates", rationale=7)]}, "rationale must be text"),
        ({"links": [link(1, "updates"), link(1, "none")]}, "memory 1 is answered twice"),
    ],
)
def test_malformed_answers_name_what_is_wrong(answer: dict, reason: str) -> None:
    with pytest.raises(MalformedOutput, match=reason):
        proposals_from_answer(answer, NEW, NEIGHBOURS)
