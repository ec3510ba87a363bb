"""Which kind a memory brought in from a plain text file most likely is. Words, not a model:
the rules are few, visible and tested, and a wrong guess costs little (the kind weighs in
ranking and bulletins; an agent can change it)."""

from __future__ import annotations

import re

from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MAX_BODY_CHARS

_DECISION = re.compile(
    r"\b(we (decided|chose|agreed|picked|went with)|decided to|decisions?|chosen because|"
    r"instead of .+ because|adr)\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(prefer(s|red)?|always|never|avoid|don'?t|do not|must not|should not|shouldn'?t|"
    r"rather than|instead of|style|convention|likes?|dislikes?)\b",
    re.IGNORECASE,
)
_PROCEDURE_HEADING = re.compile(
    r"\b(how to|steps?|workflow|procedure|setup|set up|install|build|test(s|ing)?|run(ning)?|"
    r"deploy(ment)?|release|commands?|getting started|usage)\b",
    re.IGNORECASE,
)
_PROCEDURE_TEXT = re.compile(
    r"^(run|use|call|start|stop|install|build|execute|deploy|open|create|add|update|check|"
    r"make sure|first|then|finally)\b|`[^`]+`",
    re.IGNORECASE,
)


def guess_kind(text: str, heading: str = "", *, numbered: bool = False) -> MemoryKind:
    """decision > preference > procedure > fact: a stated choice is the most useful to keep
    as one, and an instruction with 'always'/'never' is a rule the team prefers. Only the
    first MAX_BODY_CHARS are read (a longer text makes no memory): "instead of .+ because"
    reads to the end of the line for each "instead of", and an imported paragraph of them
    is as long as the file."""
    text, heading = text[:MAX_BODY_CHARS], heading[:MAX_BODY_CHARS]
    if _DECISION.search(text) or _DECISION.search(heading):
        return MemoryKind.DECISION
    if _PREFERENCE.search(text) or re.search(
        r"\b(style|conventions?|preferences?)\b", heading, re.IGNORECASE
    ):
        return MemoryKind.PREFERENCE
    if numbered or _PROCEDURE_HEADING.search(heading) or _PROCEDURE_TEXT.search(text):
        return MemoryKind.PROCEDURE
    return MemoryKind.FACT
