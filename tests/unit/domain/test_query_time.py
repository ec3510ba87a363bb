import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from memhive_domain import query_time
from memhive_domain.fusion import FusedHit
from memhive_domain.query_time import favour_named_times, times_named, without_times
from memhive_domain.time_range import TimeRange

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def ranges(query: str) -> list[TimeRange]:
    return [n.range for n in times_named(query, NOW)]


def test_a_day_in_either_order_is_that_day() -> None:
    assert ranges("what did Maria share on 16 June, 2023?") == [
        TimeRange(day(2023, 6, 16), day(2023, 6, 17))
    ]
    assert ranges("who came on May 3, 2023") == [TimeRange(day(2023, 5, 3), day(2023, 5, 4))]
    assert ranges("deploys of 2024-02-29") == [TimeRange(day(2024, 2, 29), day(2024, 3, 1))]


def test_a_month_with_its_year_is_the_whole_month() -> None:
    assert ranges("what happened in December 2023?") == [
        TimeRange(day(2023, 12, 1), day(2024, 1, 1))
    ]


def test_a_year_after_a_preposition_is_the_whole_year() -> None:
    assert ranges("how many releases in 2025") == [TimeRange(day(2025, 1, 1), day(2026, 1, 1))]


def test_the_weeks_before_a_day_end_at_that_day() -> None:
    assert ranges("the puppy she got two weeks before August 11, 2023") == [
        TimeRange(day(2023, 7, 28), day(2023, 8, 11))
    ]
    assert ranges("what did he do the week before August 3, 2023?") == [
        TimeRange(day(2023, 7, 27), day(2023, 8, 3))
    ]


def test_relative_times_count_back_from_now() -> None:
    assert ranges("what failed yesterday") == [TimeRange(datetime(2026, 3, 9, 12, tzinfo=UTC), NOW)]
    assert ranges("decisions from last week")[0].before == NOW


def test_vague_or_impossible_dates_name_nothing() -> None:
    assert ranges("what did we decide in May?") == []
    assert ranges("ticket 2023 is open") == []


def test_an_impossible_day_still_names_its_month() -> None:
    assert ranges("the 31 February, 2023 outage") == [TimeRange(day(2023, 2, 1), day(2023, 3, 1))]


def test_named_times_can_be_cut_from_the_query() -> None:
    query = "What did Gina find on 1 February, 2023 for her store?"
    assert without_times(query, times_named(query, NOW)) == "What did Gina find on for her store?"


def test_memories_of_the_named_time_are_favoured_not_filtered() -> None:
    hits = [FusedHit("early", 1.0), FusedHit("then", 0.5), FusedHit("unknown", 0.4)]
    occurred = {"early": day(2023, 1, 5), "then": day(2023, 6, 16)}
    named = [TimeRange(day(2023, 6, 16), day(2023, 6, 17))]

    favoured = favour_named_times(hits, occurred, named, boost=2.0)

    assert [(h.memory_id, h.score) for h in favoured] == [
        ("then", 1.5),
        ("early", 1.0),
        ("unknown", 0.4),
    ]
    assert favour_named_times(hits, occurred, [], boost=2.0) == hits


def test_counted_back_in_units_ago_a_unit_either_side() -> None:
    assert ranges("the outage two weeks ago") == [
        TimeRange(datetime(2026, 2, 17, 12, tzinfo=UTC), datetime(2026, 3, 3, 12, tzinfo=UTC))
    ]
    assert ranges("a few days ago")[0].before == datetime(2026, 3, 8, 12, tzinfo=UTC)


def test_last_weekday_is_the_latest_such_day_before_today() -> None:
    assert ranges("what broke last Friday") == [TimeRange(day(2026, 3, 6), day(2026, 3, 7))]
    assert ranges("the release last Tuesday") == [TimeRange(day(2026, 3, 3), day(2026, 3, 4))]


def test_plans_ahead_are_whole_days_from_today() -> None:
    assert ranges("the offsite tomorrow") == [TimeRange(day(2026, 3, 11), day(2026, 3, 12))]
    assert ranges("what ships next week") == [TimeRange(day(2026, 3, 11), day(2026, 3, 24))]


def test_a_memory_stating_the_named_time_rises_though_it_happened_later() -> None:
    hits = [FusedHit("other", 1.0), FusedHit("told later", 0.5)]
    occurred = {"other": day(2023, 5, 8), "told later": day(2023, 5, 8)}
    may_7 = TimeRange(day(2023, 5, 7), day(2023, 5, 8))
    stated = {
        "told later": [
            TimeRange(day(2023, 5, 7), day(2023, 5, 7) + (day(2023, 5, 8) - day(2023, 5, 7)) / 2)
        ]
    }

    favoured = favour_named_times(hits, occurred, [may_7], boost=2.0, stated=stated)

    assert [h.memory_id for h in favoured] == ["told later", "other"]


# Text made of the forms and the words they read, and of characters that fold in odd ways
# under IGNORECASE (the long s, the Kelvin sign, the dotted I), so that matches are common.
_PHRASES = [
    "in 1999",
    "May 1999",
    "16 June, 1999",
    "June 16, 2023",
    "1999-06-16",
    "the week before 3 July 2023",
    "two weeks ago",
    "a few days ago",
    "last Friday",
    "last weekend",
    "next year",
]
_WORDS = (  # noqa: SIM905 (reads better as text)
    "last week weekend month year yesterday today tonight tomorrow next ago a an one two "
    "three few couple of in during since for before after the Friday monday May june Sept "
    "3rd 16 2023 1999 2023-06-16 12023 20231 LAST AGO Today ſix K İ"
).split()
_TEXTS = st.lists(
    st.sampled_from(_PHRASES)
    | st.sampled_from(_WORDS)
    | st.sampled_from([",", ".", "-", " ", "\n"])
    | st.text(max_size=3),
    max_size=25,
).map(" ".join)


@given(_TEXTS)
def test_the_cheap_looks_before_each_family_never_skip_a_time(query: str) -> None:
    """Each family of forms is read only when a cheap look says it can match (and each
    alternation of words only where the next letter starts one of them): what they find is
    what every form read everywhere finds."""
    everything = [
        *query_time._days(query),
        *query_time._months(query),
        *query_time._years(query),
        *query_time._relative(query, NOW),
        *query_time._last_weekday(query, NOW),
        *query_time._ago(query, NOW),
        *query_time._ahead(query, NOW),
    ]

    assert list(query_time._candidates(query, NOW)) == everything


@given(_TEXTS)
def test_a_form_led_by_its_first_letters_matches_as_it_would_without(query: str) -> None:
    for form in (
        query_time._RELATIVE_FORM,
        query_time._AGO,
        query_time._LAST_WEEKDAY,
        query_time._AHEAD_FORM,
    ):
        plain = re.compile(re.sub(r"\(\?=\[[^\]]*\]\)", "", form.pattern, count=1), form.flags)
        assert plain.pattern != form.pattern

        assert [m.groupdict() | {"at": m.span()} for m in form.finditer(query)] == [
            m.groupdict() | {"at": m.span()} for m in plain.finditer(query)
        ]


@given(_TEXTS)
def test_spans_never_overlap_and_the_most_precise_is_kept(query: str) -> None:
    kept: list[query_time.NamedTime] = []
    for named in query_time._candidates(query, NOW):  # each against every span kept
        if not any(named.start < k.end and k.start < named.end for k in kept):
            kept.append(named)

    assert times_named(query, NOW) == kept


@given(_TEXTS, st.integers(min_value=0, max_value=10))
def test_a_limit_keeps_the_first_times_named(query: str, limit: int) -> None:
    assert times_named(query, NOW, limit=limit) == times_named(query, NOW)[:limit]


def test_a_text_of_dates_is_read_only_as_far_as_the_limit(monkeypatch) -> None:
    """A body of 4,000 characters of dates is read for its first few (`mentions.py` keeps
    eight), not for all 363 of them."""
    read = []
    day_of = query_time._day_of
    monkeypatch.setattr(query_time, "_day_of", lambda match: read.append(match) or day_of(match))
    dates = ("1 May 2023 " * 400)[:4000]

    assert len(times_named(dates, NOW, limit=8)) == 8
    assert len(read) == 8
    assert len(times_named(dates, NOW)) == 363


def test_the_weeks_before_a_day_are_read_within_reach_of_it() -> None:
    """Only the text just before a day is searched for "the week before" (not all of it,
    once per day): an absurd gap leaves the day alone."""
    near, far = "the week before 3 July 2023", "the week before" + " " * 100 + "3 July 2023"

    assert ranges(near) == [TimeRange(day(2023, 6, 26), day(2023, 7, 3))]
    assert ranges(far) == [TimeRange(day(2023, 7, 3), day(2023, 7, 4))]
