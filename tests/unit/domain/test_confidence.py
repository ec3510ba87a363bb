from memhive_adapters.runtime.lane_builders import LOCAL_MODELS
from memhive_domain.confidence import (
    CALIBRATIONS,
    FP32,
    calibration_for,
    content_words,
    query_coverage,
)


def test_content_words_leave_question_words_and_endings_out() -> None:
    assert content_words("When did Melanie paint the sunsets?") == {"melanie", "paint", "sunset"}


def test_coverage_is_the_share_of_the_query_the_memory_holds() -> None:
    body = "Melanie: I painted that lake sunrise last year"
    assert query_coverage("When did Melanie paint a sunrise?", body) == 1.0
    assert query_coverage("What is the capital of France?", body) == 0.0
    assert query_coverage("what is it?", body) == 0.0


def test_each_local_encoder_has_a_calibration_of_its_own() -> None:
    assert set(LOCAL_MODELS) <= CALIBRATIONS.keys()  # a new one needs bench.confidence_fit
    fp32 = calibration_for("all-MiniLM-L6-v2")
    int8s = [calibration_for(f"all-MiniLM-L6-v2/int8-per-text-v{n}") for n in (1, 2)]

    assert fp32 is FP32
    for int8 in int8s:
        assert int8 is not FP32
        assert int8.confidence(0.4, 0.5) != fp32.confidence(0.4, 0.5)
    assert int8s[0] is not int8s[1]


def test_an_encoder_fitted_by_no_one_gets_fp32_minilms_calibration() -> None:
    assert calibration_for("openai/text-embedding-3-small") is FP32


def test_every_calibration_grows_with_similarity_and_coverage() -> None:
    for calibration in CALIBRATIONS.values():
        unrelated = calibration.confidence(similarity=0.05, coverage=0.0)
        partly = calibration.confidence(similarity=0.3, coverage=0.5)
        answer = calibration.confidence(similarity=0.6, coverage=1.0)
        assert 0 < unrelated < 0.01 < partly < answer < 1
        assert calibration.confidence(0.3, 0.5) < calibration.confidence(0.4, 0.5)
        assert calibration.confidence(0.3, 0.5) < calibration.confidence(0.3, 0.6)
