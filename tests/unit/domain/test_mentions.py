import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from memhive_domain import mentions
from memhive_domain.mentions import MAX_PEOPLE, MAX_TIMES, Mentions, mentions_of, names_in
from memhive_domain.time_range import TimeRange

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_a_transcript_line_is_said_by_its_speaker() -> None:
    said = mentions_of("Caroline: I went to a support group.", SAID)

    assert said.speaker == "Caroline"
    assert said.people == ("caroline",)
    assert mentions_of("The deploy failed again.", SAID).speaker is None


def test_people_addressed_are_not_what_it_is_about() -> None:
    said = mentions_of("Melanie: Wow, Caroline! I just saw Jon at the lake. Thanks, Dana.", SAID)

    assert said.people == ("melanie", "jon")
    assert said.is_about(frozenset({"jon"}))
    assert not said.is_about(frozenset({"caroline"}))


def test_sentence_openers_and_calendar_words_are_not_people() -> None:
    said = mentions_of("Jon: Lost my job on Friday. It was in May, with Gina there.", SAID)

    assert said.people == ("jon", "gina")


def test_relative_times_count_from_when_it_happened() -> None:
    said = mentions_of("Caroline: I went to a support group yesterday.", SAID)

    assert said.times == (TimeRange(datetime(2023, 5, 7, 13, 56, tzinfo=UTC), SAID),)
    assert said.dated


def test_absolute_times_stay_what_they_say() -> None:
    said = mentions_of("We moved billing to Postgres in March 2024.", SAID)

    assert said.times == (
        TimeRange(datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 4, 1, tzinfo=UTC)),
    )


def test_a_vague_time_dates_a_memory_without_a_range() -> None:
    said = mentions_of("Jon: I've been dancing since I was a kid.", SAID)

    assert said.times == ()
    assert said.dated
    assert not mentions_of("Jon: I love dancing.", SAID).dated


def test_a_question_mark_in_the_text_asks_but_not_in_an_image_caption() -> None:
    assert mentions_of("Caroline: What pets do you have?", SAID).asks
    assert not mentions_of("Mel: Look! [image: a sign saying why not?]", SAID).asks


def test_a_query_names_its_people_in_lower_case() -> None:
    assert names_in("What does Melanie do to destress?") == frozenset({"melanie"})
    assert names_in("Caroline's identity?") == frozenset({"caroline"})
    assert names_in("When did we ship the release?") == frozenset()


@given(st.text(max_size=600))
def test_any_body_reads_within_bounds(body: str) -> None:
    said = mentions_of(body, SAID)

    assert isinstance(said, Mentions)
    assert len(said.people) <= MAX_PEOPLE
    assert len(said.times) <= MAX_TIMES


def test_a_body_naming_many_people_keeps_the_first_ones() -> None:
    body = "Ann: " + " ".join(f"I met {chr(65 + i)}ob{chr(97 + i)}." for i in range(26))

    said = mentions_of(body, SAID)

    assert len(said.people) == MAX_PEOPLE
    assert said.people[0] == "ann"


_WORDS = (  # noqa: SIM905 (reads better as text)
    "Hey hi Hello thanks Thank you wow yes oh Sorry so ok dear bye Mel Jon Caroline ſo K İ"
).split()


@given(
    st.lists(
        st.sampled_from(_WORDS)
        | st.sampled_from([",", ".", "!", "?", " ", "\n"])
        | st.text(max_size=3),
        max_size=25,
    ).map(" ".join)
)
def test_the_look_before_an_addressed_name_changes_no_match(text: str) -> None:
    """`_ADDRESSED` looks at a position's first character before trying each greeting."""
    plain = re.compile(mentions._ADDRESSED_FORM, re.IGNORECASE)

    assert [m.span() for m in mentions._ADDRESSED.finditer(text)] == [
        m.span() for m in plain.finditer(text)
    ]
