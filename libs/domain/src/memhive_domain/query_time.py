"""Dates named in a recall query ("on 3 June, 2023", "in May 2023", "last week"), read as
the time ranges they mean, so recall can favour memories that happened then.

Only unambiguous forms are read: a day with its month and year, a month with its year, a
year, "the week before <day>", and relative forms counted from now (yesterday, last
week/month/year, "two weeks ago", "last Friday", tomorrow, next week). A month with no year,
a bare weekday or "the trip" are left alone: guessing them would favour the wrong memories.
Ranges are half-open [after, before) in UTC. The same reading serves memories: what a
memory says ("yesterday") counted from when it happened (`mentions.py`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from memhive_domain.fusion import FusedHit
from memhive_domain.time_range import TimeRange


def _led_by(words: Iterable[str], also: str = "") -> str:
    """A look at one character, the words' first letters (or `also`), put before an
    alternation of them: most positions of a text fail it at once, where the alternation
    tries each word in turn. Every body a save writes is read with these (`mentions.py`)."""
    return "(?=[" + "".join(sorted({word[0] for word in words})) + also + "])"


_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(?P<month>" + "|".join(_MONTHS) + r"|" + "|".join(m[:3] for m in _MONTHS) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_DAY_FORMS = (
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b"),
)
_MONTH_FORM = re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)
_YEAR_FORM = re.compile(rf"\b(?:in|during|of|since|for)\s+{_YEAR}\b", re.IGNORECASE)
_WEEKS_BEFORE = re.compile(
    r"\b(?:last\s+)?(?P<count>a|one|two|three|\d)?\s*(?P<unit>weekend|week|day)s?\s+"
    r"(?P<side>before|after)\s*$",
    re.IGNORECASE,
)
# How far before a day "the two weeks before" is looked for: the longest such phrase is ~35
# characters. Searching the whole text before each day cost a body of dates quadratic time
# (4,000 characters of them: 125 ms of the gateway's event loop).
_WEEKS_BEFORE_REACH = 64
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3}
_RELATIVE = {
    "yesterday": (timedelta(days=1), timedelta(days=0)),
    "last week": (timedelta(days=7), timedelta(days=0)),
    "last weekend": (timedelta(days=9), timedelta(days=0)),
    "last month": (timedelta(days=31), timedelta(days=0)),
    "last year": (timedelta(days=366), timedelta(days=0)),
}
# Every day, month and year form holds a year of four digits with no digit either side.
_A_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_RELATIVE_FORM = re.compile(
    rf"\b{_led_by(_RELATIVE)}(" + "|".join(_RELATIVE) + r")\b", re.IGNORECASE
)
_UNITS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
_AGO_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_AGO_COUNTS |= {"a few": 3, "few": 3, "a couple of": 2}
_AGO = re.compile(
    r"\b"
    + _led_by(_AGO_COUNTS, also=r"\d")
    + r"(?P<count>"
    + "|".join(_AGO_COUNTS)
    + r"|\d{1,2})\s+"
    r"(?P<unit>day|week|weekend|month|year)s?\s+ago\b",
    re.IGNORECASE,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_LAST_WEEKDAY = re.compile(
    rf"\b{_led_by(['last'])}last\s+(?P<weekday>" + "|".join(_WEEKDAYS) + r")\b", re.IGNORECASE
)
_AHEAD = {
    "today": (0, 1),
    "tonight": (0, 1),
    "tomorrow": (1, 2),
    "next week": (1, 14),
    "next month": (1, 62),
    "next year": (1, 731),
}
_AHEAD_FORM = re.compile(rf"\b{_led_by(_AHEAD)}(" + "|".join(_AHEAD) + r")\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class NamedTime:
    """A time range the query names, and where in the query it was said."""

    range: TimeRange
    start: int
    end: int


def times_named(query: str, now: datetime, limit: int | None = None) -> list[NamedTime]:
    """Every range the query names (the first `limit` of them), most precise first (a day,
    then a month, a year, a relative phrase); spans never overlap. The forms are read
    lazily: a limit leaves the rest of a text of dates unread."""
    found: list[NamedTime] = []
    # The spans kept so far, by start: disjoint, so their ends are in order too, and only
    # the last one starting before a candidate's end can overlap it. A text of 4,000
    # characters of dates has ~360 candidates: each checked against every span kept, ~5 ms.
    starts: list[int] = []
    ends: list[int] = []
    if limit == 0:
        return found
    for named in _candidates(query, now):
        i = bisect_left(starts, named.end)
        if i and ends[i - 1] > named.start:
            continue
        found.append(named)
        if len(found) == limit:
            break
        starts.insert(i, named.start)
        ends.insert(i, named.end)
    return found


def _candidates(query: str, now: datetime) -> Iterator[NamedTime]:
    """Each family of forms, read only when a cheap look says it can match: every body a
    save writes is read too (`mentions.py`), and most name no time at all."""
    if _A_YEAR.search(query):  # those forms scan the text many times over: ~0.2 ms in 700 chars
        yield from _days(query)
        yield from _months(query)
        yield from _years(query)
    lower = query.lower()
    if "yesterday" in lower or "last " in lower:
        yield from _relative(query, now)
        yield from _last_weekday(query, now)
    if " ago" in lower:
        yield from _ago(query, now)
    if any(word in lower for word in ("today", "tonight", "tomorrow", "next ")):
        yield from _ahead(query, now)


def without_times(query: str, named: list[NamedTime]) -> str:
    """The query with the named times cut out, for the lanes that match words."""
    for n in sorted(named, key=lambda n: -n.start):
        query = query[: n.start] + " " + query[n.end :]
    return " ".join(query.split())


def _days(query: str) -> Iterator[NamedTime]:
    for form in _DAY_FORMS:
        for match in form.finditer(query):
            day = _day_of(match)
            if day is not None:
                yield _around_day(query, day, *match.span())


def _day_of(match: re.Match[str]) -> datetime | None:
    groups = match.groupdict()
    month = int(groups["mnum"]) if groups.get("mnum") else _month_number(groups["month"])
    try:
        return datetime(int(groups["year"]), month, int(groups["day"]), tzinfo=UTC)
    except ValueError:
        return None


def _around_day(query: str, day: datetime, start: int, end: int) -> NamedTime:
    """ "the week before 3 July" is the seven days before it; "on 3 July", that day."""
    before = _WEEKS_BEFORE.search(query, max(0, start - _WEEKS_BEFORE_REACH), start)
    if before is None:
        return NamedTime(TimeRange(day, day + timedelta(days=1)), start, end)
    count = _COUNTS.get((before.group("count") or "a").lower()) or int(before.group("count"))
    span = timedelta(days=count * (1 if before.group("unit").lower() == "day" else 7))
    if before.group("side").lower() == "before":
        return NamedTime(TimeRange(day - span, day), before.start(), end)
    return NamedTime(
        TimeRange(day + timedelta(days=1), day + timedelta(days=1) + span), before.start(), end
    )


def _months(query: str) -> Iterator[NamedTime]:
    for match in _MONTH_FORM.finditer(query):
        year, month = int(match.group("year")), _month_number(match.group("month"))
        after = datetime(year, month, 1, tzinfo=UTC)
        before = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
        yield NamedTime(TimeRange(after, before), *match.span())


def _years(query: str) -> Iterator[NamedTime]:
    for m in _YEAR_FORM.finditer(query):
        year = int(m.group("year"))
        after, before = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
        yield NamedTime(TimeRange(after, before), *m.span())


def _relative(query: str, now: datetime) -> Iterator[NamedTime]:
    for match in _RELATIVE_FORM.finditer(query):
        back, until = _RELATIVE[match.group(1).lower()]
        yield NamedTime(TimeRange(now - back, now - until), *match.span())


def _ago(query: str, now: datetime) -> Iterator[NamedTime]:
    """ "two weeks ago": a unit either side of the moment it names, since people round."""
    for match in _AGO.finditer(query):
        raw = match.group("count").lower()
        count = _AGO_COUNTS.get(raw) or int(raw)
        unit = timedelta(days=_UNITS[match.group("unit").lower()])
        span = TimeRange(now - unit * (count + 1), now - unit * (count - 1))
        yield NamedTime(span, *match.span())


def _last_weekday(query: str, now: datetime) -> Iterator[NamedTime]:
    """ "last Friday": the latest Friday before today, the whole day."""
    today = _day_start(now)
    for match in _LAST_WEEKDAY.finditer(query):
        back = (today.weekday() - _WEEKDAYS.index(match.group("weekday").lower())) % 7 or 7
        day = today - timedelta(days=back)
        yield NamedTime(TimeRange(day, day + timedelta(days=1)), *match.span())


def _ahead(query: str, now: datetime) -> Iterator[NamedTime]:
    """Today, tomorrow, next week...: whole days from today on (plans are events too)."""
    today = _day_start(now)
    for match in _AHEAD_FORM.finditer(query):
        start, end = _AHEAD[match.group(1).lower()]
        after, before = today + timedelta(days=start), today + timedelta(days=end)
        yield NamedTime(TimeRange(after, before), *match.span())


def _day_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _month_number(name: str) -> int:
    name = name.lower()
    return next(i for i, m in enumerate(_MONTHS, start=1) if m.startswith(name[:3]))


# A memory that happened when the query says gets its score multiplied by 1 + this.
# Measured on LoCoMo (bench.quality_study): 0.2 +0.2 points, 1.0 +0.8, 2.0 +1.0 (with
# neighbour context); dates name the moment precisely, so the boost is large.
DEFAULT_TIME_BOOST = 2.0


def favour_named_times(
    hits: Sequence[FusedHit],
    occurred: Mapping[str, datetime],
    named: Sequence[TimeRange],
    boost: float,
    stated: Mapping[str, Sequence[TimeRange]] | None = None,
) -> list[FusedHit]:
    """Hits that happened within a range the query named, or that state a time within it
    ("yesterday", said on 8 May, is 7 May: `stated`), score (1 + boost) x, best first.
    A boost, not a filter: "in May" may also be a memory saved in June about May."""
    if not named or boost <= 0:
        return list(hits)
    stated = stated or {}
    favoured = [
        replace(h, score=h.score * (1 + boost))
        if _then(h.memory_id, occurred, stated, named)
        else h
        for h in hits
    ]
    return sorted(favoured, key=lambda h: (-h.score, h.memory_id))


def _then(
    memory_id: str,
    occurred: Mapping[str, datetime],
    stated: Mapping[str, Sequence[TimeRange]],
    named: Sequence[TimeRange],
) -> bool:
    moment = occurred.get(memory_id)
    if moment is not None and any(r.holds(moment) for r in named):
        return True
    return any(s.overlaps(r) for s in stated.get(memory_id, ()) for r in named)
