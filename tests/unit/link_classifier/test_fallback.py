from __future__ import annotations

from memhive_domain.edges import EdgeKind
from memhive_link_classifier.fallback import NearDuplicateClassifier

from tests.unit.link_classifier.fakes import memory


async def test_only_near_duplicates_are_linked_and_only_as_related_to() -> None:
    new = memory("new", "Deploys run every Friday at 5pm", days=5)
    twin, cousin = memory("twin", "Deploys run every Friday at 5 pm"), memory("c", "Deploys")

    proposals = await NearDuplicateClassifier(0.92).classify(new, [(twin, 0.97), (cousin, 0.91)])

    assert [(p.src_id, p.dst_id, p.kind, p.weight) for p in proposals] == [
        ("new", "twin", EdgeKind.RELATED_TO, 0.97)
    ]
    assert "0.970" in proposals[0].rationale


async def test_the_threshold_itself_counts_as_a_near_duplicate() -> None:
    new, twin = memory("new", "a", days=1), memory("twin", "a.")

    proposals = await NearDuplicateClassifier(0.92).classify(new, [(twin, 0.92)])

    assert [p.dst_id for p in proposals] == ["twin"]


async def test_the_edge_runs_newer_to_older_whichever_memory_is_classified() -> None:
    older, newer = memory("z-older", "a"), memory("a-newer", "a.", days=1)
    classifier = NearDuplicateClassifier(0.9)

    one = await classifier.classify(older, [(newer, 0.95)])
    other = await classifier.classify(newer, [(older, 0.95)])

    assert [(p.src_id, p.dst_id) for p in one + other] == [("a-newer", "z-older")] * 2


async def test_a_tie_in_age_is_broken_by_id_the_same_way_from_both_ends() -> None:
    a, b = memory("a", "x"), memory("b", "x.")
    classifier = NearDuplicateClassifier(0.9)

    one, other = (
        await classifier.classify(a, [(b, 0.95)]),
        await classifier.classify(b, [(a, 0.95)]),
    )

    assert [(p.src_id, p.dst_id) for p in one + other] == [("b", "a")] * 2


async def test_weights_stay_within_one_for_rounding_above_it() -> None:
    proposals = await NearDuplicateClassifier(0.9).classify(
        memory("n", "x"), [(memory("t", "x"), 1.0000001)]
    )

    assert proposals[0].weight == 1.0


async def test_both_ends_propose_the_same_edge_whatever_float_noise_their_cosines_carry() -> None:
    """Each end of a pair finds the other by its own search (or the recent ring): the
    cosines differ in their last digits, the proposals do not."""
    older, newer = memory("z-older", "a"), memory("a-newer", "a.", days=1)
    classifier = NearDuplicateClassifier(0.9)

    [one] = await classifier.classify(older, [(newer, 0.9512345)])
    [other] = await classifier.classify(newer, [(older, 0.9512349)])

    assert one == other and one.weight == 0.951
