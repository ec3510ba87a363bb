from memhive_adapters.runtime.lane_builders import LOCAL_MODELS
from memhive_domain.lane_balance import DEFAULT, LaneBalance, lane_balance_for


def test_minilm_keeps_the_balance_it_was_measured_with() -> None:
    minilms = [m for m in LOCAL_MODELS if m.startswith("all-MiniLM-L6-v2")]
    for encoder in (*minilms, "text-embedding-3"):
        assert lane_balance_for(encoder) == LaneBalance(3.0, 0.5) == DEFAULT


def test_a_stronger_vector_lane_is_outweighed_less() -> None:
    mpnet = lane_balance_for("all-mpnet-base-v2")
    assert "all-mpnet-base-v2" in LOCAL_MODELS
    assert mpnet.lexical_weight < DEFAULT.lexical_weight
    assert mpnet.neighbour_share < DEFAULT.neighbour_share


def test_what_the_settings_name_wins_over_the_encoder_s_own() -> None:
    assert lane_balance_for("all-mpnet-base-v2", lexical_weight=3.0) == LaneBalance(3.0, 0.4)
    assert lane_balance_for("all-mpnet-base-v2", neighbour_share=0.0) == LaneBalance(1.25, 0.0)
    assert lane_balance_for("all-MiniLM-L6-v2", 2.0, 0.6) == LaneBalance(2.0, 0.6)
