"""What a memory names, read once when it is written: who says it, the people it is about,
the times it states, and whether it asks a question. Recall uses them (`answer_fit.py`,
`neighbours.py`, `query_time.py`) without reading bodies again, and no LLM is involved:
only the shapes English text gives these things.

- **The speaker**: a transcript line "Caroline: I went to ..." is said by Caroline, and
  its "I" and "my" are hers. Chat hooks save turns this way.
- **People** are capitalised words inside a sentence that are not question words,
  greetings or calendar words, less the ones only addressed ("Thanks, Melanie!",
  "Hey Jon,"): a reply names whom it answers, but is not about them.
- **Times** are the ranges `query_time.times_named` reads, counted from when the memory
  happened ("yesterday" in a turn of 8 May 2023 is 7 May 2023); `dated` also holds for
  vague times ("recently", "since I was a kid") that give no range but still date it.
- **Asks**: the text (an image caption left out) has a question mark; the reply that
  follows it in its thread most likely holds the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from memhive_domain.query_time import times_named
from memhive_domain.question_words import QUESTION_STOPWORDS
from memhive_domain.time_range import TimeRange

MAX_PEOPLE = 16  # bounded: a long body names at most this many (the first ones)
MAX_TIMES = 8
_SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][\w'.-]{0,39}):\s")
_NAME = re.compile(r"(?<![\w'])(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?!\w)")
_SENTENCE_OPENER = re.compile(r"(?:^|(?<=[.!?]))\s*[A-Z][\w'-]*")
_CAPTION = re.compile(r"\[image:[^\]]*\]")
# A name is only addressed when it stands alone between a greeting or a comma and the
# end of a clause: "Hey Mel!", "Thanks, Caroline.", "Wow Jon, that's great".
_GREETINGS = (
    r"(?:hey|hi|hello|thanks|thank you|wow|yes|yeah|yep|oh|sorry|congrats|dear|bye|ok|okay"
    r"|aw|haha|so)"
)
_ADDRESSED_FORM = (
    r"(?:^|[.!?]\s+|,\s*|\b" + _GREETINGS + r",?\s+)(?P<name>[A-Z][a-z]+)\s*(?=[,!?.]|$)"
)
# The same, led by a look at the first character (a greeting's, a stop or a comma): most
# positions fail one test rather than one per greeting (72 -> 44 us over 700 characters).
_ADDRESSED = re.compile(r"(?=[.!?,htwyoscdba]|^)" + _ADDRESSED_FORM, re.IGNORECASE)
# Matched against the lower-cased text (faster than IGNORECASE over many alternatives).
_VAGUE_TIME = re.compile(
    r"\b(?:recently|lately|ago|since|last|next|earlier|later|yesterday|tonight|tomorrow|"
    r"(?:this|that) (?:morning|afternoon|evening|week|weekend|month|year|summer|winter)|"
    r"when i was|(?:19|20)\d\d|"
    r"january|february|march|april|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)
_NOT_NAMES = (
    frozenset(QUESTION_STOPWORDS)
    | frozenset(
        """i im ive id ill hey hi hello thanks thank wow yes yeah yep oh sorry congrats dear bye
    ok okay aw haha lol omg please sure cool great awesome nice love good well just also
    really totally absolutely definitely monday tuesday wednesday thursday friday saturday
    sunday january february march april may june july august september october november
    december today tomorrow yesterday""".split()  # noqa: SIM905 (reads better as text)
    )
    | frozenset(
        f"{day}s"
        for day in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
)


@dataclass(frozen=True, slots=True)
class Mentions:
    speaker: str | None = None  # as written: "Caroline"
    people: tuple[str, ...] = ()  # lower case, the speaker first; addressees left out
    times: tuple[TimeRange, ...] = ()  # stated times, relative ones from when it happened
    dated: bool = False  # states a time, with a range or without ("recently")
    asks: bool = False  # asks a question

    def is_about(self, names: frozenset[str]) -> bool:
        """Whether any of these (lower-case) names is its speaker or someone it is about."""
        return any(p in names for p in self.people)


@lru_cache(maxsize=4096)
def mentions_of(body: str, occurred: datetime) -> Mentions:
    """What `body`, which happened at `occurred`, names. Remembered for the last few
    thousand bodies: a record kept before mentions were stored is read at each recall."""
    speaker_match = _SPEAKER.match(body)
    speaker = speaker_match.group("name") if speaker_match else None
    text = _CAPTION.sub(" ", body[speaker_match.end() :] if speaker_match else body)
    people = _people(text, speaker)
    times = tuple(n.range for n in times_named(text, occurred, limit=MAX_TIMES))
    dated = bool(times) or _VAGUE_TIME.search(text.lower()) is not None
    return Mentions(speaker, people, times, dated, "?" in text)


def names_in(text: str) -> frozenset[str]:
    """The people a query (or any text) names, lower case: capitalised words that are not
    question words, greetings or calendar words."""
    return frozenset(_candidate_names(text))


def _people(text: str, speaker: str | None) -> tuple[str, ...]:
    """Sentence openers are left out too: "Lost my job" is not a person, and the speaker
    (whose "I" opens most sentences) is named already."""
    addressed = {m.group("name").lower() for m in _ADDRESSED.finditer(text)}
    inside = " ".join(_SENTENCE_OPENER.sub(" ", text).split())
    named = [n for n in _candidate_names(inside) if n not in addressed]
    ordered = ([speaker.lower()] if speaker else []) + named
    return tuple(dict.fromkeys(ordered))[:MAX_PEOPLE]


def _candidate_names(text: str) -> list[str]:
    names = (m.group("name").lower() for m in _NAME.finditer(text))
    return [n for n in names if n not in _NOT_NAMES]
