"""Whether an LLM's prose briefing may be served instead of the deterministic bulletin.

The prose is only trusted when its provenance holds: every id it cites exists in the inputs
and every pinned memory is cited. Anything else falls back to the deterministic render.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

# "[id]" or "[id1, id2]". Any bracketed group counts as a citation, so stray brackets are
# rejected as unknown ids: a false rejection only costs the deterministic render.
CITATION = re.compile(r"\[([^\[\]\n]+)\]")
CITATION_SEPARATORS = re.compile(r"[\s,;]+")
DEFAULT_SUMMARY_WORDS = 200

SUMMARY_INSTRUCTIONS = """\
You brief an AI agent that is starting a session. Below is a bulletin of its shared memories;
every memory line starts with its id in square brackets.
Write a short briefing of at most {max_words} words, most important first.
Rules:
- Cite the id of every memory you use, in square brackets exactly as written, e.g. [{example}].
- Every memory under "Pinned" must appear, with its id.
- Never invent ids, and use square brackets for nothing but ids.
- Use only what the bulletin says; add no advice of your own.
Reply with the briefing only."""


def cited_ids(text: str) -> list[str]:
    """Every id cited in square brackets, in order of first appearance."""
    found = (
        part
        for group in CITATION.findall(text)
        for part in CITATION_SEPARATORS.split(group.strip())
        if part
    )
    return list(dict.fromkeys(found))


def check_summary(
    summary: str,
    *,
    pinned_ids: Collection[str],
    known_ids: Collection[str],
    max_tokens: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
) -> list[str]:
    """Reasons to reject the summary; empty when it may be served. With `max_tokens` (and the
    `count_tokens` that measures it) a summary over the bulletin's budget is rejected too."""
    if max_tokens is not None and count_tokens is None:
        raise ValueError("max_tokens needs count_tokens to measure the summary")
    if not summary or not summary.strip():
        return ["the summary is empty"]
    cited = set(cited_ids(summary))
    reasons = []
    if unknown := sorted(cited - set(known_ids)):
        reasons.append(f"cites unknown memory ids: {', '.join(unknown)}")
    if missing := sorted(set(pinned_ids) - cited):
        reasons.append(f"leaves out pinned memories: {', '.join(missing)}")
    if known_ids and not cited:
        reasons.append("cites no memory ids")
    used = count_tokens(summary) if count_tokens is not None else 0
    if max_tokens is not None and used > max_tokens:
        reasons.append(f"is {used} tokens; the budget is {max_tokens}")
    return reasons


def build_summary_prompt(
    bulletin_text: str, *, max_words: int = DEFAULT_SUMMARY_WORDS
) -> list[dict[str, str]]:
    """Chat messages (OpenAI/litellm shape) asking for a short briefing that cites ids."""
    example = next(iter(cited_ids(bulletin_text)), "memory-id")
    system = SUMMARY_INSTRUCTIONS.format(max_words=max_words, example=example)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": bulletin_text},
    ]
