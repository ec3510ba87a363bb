from __future__ import annotations

import pytest
from memhive_domain.fusion import FusionMethod, fuse, fuse_ranked_lists, fuse_relative_scores


def test_rrf_sums_reciprocal_ranks_with_k_60() -> None:
    fused = fuse_ranked_lists({"vector": ["a", "b"], "lexical": ["b", "c"]})
    scores = {h.memory_id: h.score for h in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61) and scores["c"] == pytest.approx(1 / 62)
    assert [h.memory_id for h in fused] == ["b", "a", "c"]
    assert fused[0].ranks == {"vector": 2, "lexical": 1}


def test_rrf_weights_scale_a_lane() -> None:
    fused = fuse_ranked_lists({"vector": ["a"], "lexical": ["b"]}, weights={"vector": 2.0})
    assert [h.memory_id for h in fused] == ["a", "b"]


def test_rrf_counts_a_repeated_id_once_at_its_best_rank() -> None:
    fused = fuse_ranked_lists({"vector": ["a", "a", "b"]})
    assert {h.memory_id: h.ranks["vector"] for h in fused} == {"a": 1, "b": 2}


def test_relative_scores_scale_each_lane_between_its_worst_and_best() -> None:
    fused = fuse_relative_scores(
        {
            "vector": [("a", 0.8), ("b", 0.6), ("d", 0.4)],
            "lexical": [("a", 10.0), ("c", 9.0), ("d", 5.0)],
        }
    )
    scores = {h.memory_id: h.score for h in fused}
    assert scores["a"] == pytest.approx(1.0)  # best in every lane
    assert scores["b"] == pytest.approx(0.25) and scores["c"] == pytest.approx(0.4)
    assert scores["d"] == pytest.approx(0.0)
    assert [h.memory_id for h in fused] == ["a", "c", "b", "d"]


def test_relative_scores_weight_lanes_and_handle_single_and_empty_lanes() -> None:
    fused = fuse_relative_scores(
        {"vector": [("a", 0.5)], "lexical": []}, weights={"vector": 1.0, "lexical": 2.0}
    )
    assert {h.memory_id: h.score for h in fused} == {"a": pytest.approx(1 / 3)}


def test_fuse_dispatches_on_the_method() -> None:
    lanes = {"vector": [("a", 0.9), ("b", 0.1)], "lexical": [("b", 5.0)]}
    assert [h.memory_id for h in fuse(FusionMethod.RRF, lanes)] == ["b", "a"]
    assert [
        h.memory_id for h in fuse(FusionMethod.RELATIVE_SCORE, lanes, weights={"vector": 3.0})
    ] == ["a", "b"]


def test_relative_scores_keep_a_repeated_id_at_its_first_place() -> None:
    fused = fuse_relative_scores({"vector": [("a", 0.9), ("b", 0.5), ("a", 0.1)]})
    assert [h.memory_id for h in fused] == ["a", "b"]
    assert {h.memory_id: h.ranks["vector"] for h in fused} == {"a": 1, "b": 2}
    assert {h.memory_id: h.score for h in fused} == {"a": pytest.approx(1.0), "b": 0.0}


def test_fused_hits_keep_each_lanes_own_score() -> None:
    lanes = {"vector": [("a", 0.8), ("b", 0.4)], "lexical": [("b", 12.0)]}

    for method in FusionMethod:
        by_id = {h.memory_id: h.lane_scores for h in fuse(method, lanes)}
        assert by_id == {"a": {"vector": 0.8}, "b": {"vector": 0.4, "lexical": 12.0}}
