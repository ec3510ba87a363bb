from memhive_domain.confidence import confidence, content_words, query_coverage


def test_content_words_leave_question_words_and_endings_out() -> None:
    assert content_words("When did Melanie paint the sunsets?") == {"melanie", "paint", "sunset"}


def test_coverage_is_the_share_of_the_query_the_memory_holds() -> None:
    body = "Melanie: I painted that lake sunrise last year"
    assert query_coverage("When did Melanie paint a sunrise?", body) == 1.0
    assert query_coverage("What is the capital of France?", body) == 0.0
    assert query_coverage("what is it?", body) == 0.0


def test_confidence_grows_with_similarity_and_coverage() -> None:
    unrelated = confidence(similarity=0.05, coverage=0.0)
    partly = confidence(similarity=0.3, coverage=0.5)
    answer = confidence(similarity=0.6, coverage=1.0)

    assert 0 < unrelated < 0.01 < partly < answer < 1
