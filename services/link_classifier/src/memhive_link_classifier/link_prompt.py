"""The one question asked of the LLM per new memory, and the checks on its answer.

Neighbours are numbered rather than named by id, so the model cannot invent an id;
the answer must name only those numbers, each at most once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhive_domain.edges import MAX_RATIONALE_CHARS, EdgeKind
from memhive_domain.memory import Memory
from memhive_ports import EdgeProposal, MalformedOutput

from memhive_link_classifier.orientation import newer_first

RELATIONS = ("updates", "contradicts", "related_to", "none")

SYSTEM = """You maintain the long-term memory of a software team.
Compare the NEW memory with each numbered EXISTING memory and choose one relation:
- "updates": both state the same thing and the newer one replaces the older
  (a changed fact, version, decision or plan);
- "contradicts": both cannot be true, and neither says it replaces the other;
- "related_to": the same topic, and both still hold;
- "none": anything else. Prefer "none" when unsure.
Answer with one JSON object and nothing else:
{"links": [{"memory": <number>, "relation": "updates|contradicts|related_to|none",
"confidence": <0 to 1>, "rationale": "<why, at most 200 characters>"}]}
with one entry per existing memory."""


def link_question(new: Memory, neighbours: Sequence[tuple[Memory, float]]) -> str:
    lines = [f"NEW (saved {new.created_at:%Y-%m-%d}): {new.body}", "", "EXISTING:"]
    for number, (memory, _) in enumerate(neighbours, start=1):
        lines.append(f"[{number}] (saved {memory.created_at:%Y-%m-%d}): {memory.body}")
    return "\n".join(lines)


def proposals_from_answer(
    answer: dict[str, Any], new: Memory, neighbours: Sequence[tuple[Memory, float]]
) -> list[EdgeProposal]:
    """Raises MalformedOutput naming the first thing wrong; a missing entry counts as none."""
    links = answer.get("links")
    if not isinstance(links, list):
        raise MalformedOutput('the answer has no "links" list')
    seen: set[int] = set()
    proposals = []
    for position, link in enumerate(links):
        number, relation, confidence, rationale = _checked_link(position, link, len(neighbours))
        if number in seen:
            raise MalformedOutput(f"links[{position}]: memory {number} is answered twice")
        seen.add(number)
        if relation != "none":
            neighbour = neighbours[number - 1][0]
            proposals.append(_proposal(new, neighbour, EdgeKind(relation), confidence, rationale))
    return proposals


def _checked_link(position: int, link: object, count: int) -> tuple[int, str, float, str]:
    where = f"links[{position}]"
    if not isinstance(link, dict):
        raise MalformedOutput(f"{where} is not an object")
    number, relation = link.get("memory"), link.get("relation")
    confidence, rationale = link.get("confidence"), link.get("rationale", "")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise MalformedOutput(f"{where}.memory must be a number from 1 to {count}, got {number!r}")
    if relation not in RELATIONS:
        raise MalformedOutput(f"{where}.relation must be one of {RELATIONS}, got {relation!r}")
    if not _is_fraction(confidence):
        raise MalformedOutput(f"{where}.confidence must be from 0 to 1, got {confidence!r}")
    if not isinstance(rationale, str):
        raise MalformedOutput(f"{where}.rationale must be text")
    return number, relation, float(confidence), " ".join(rationale.split())[:MAX_RATIONALE_CHARS]


def _is_fraction(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and 0 <= value <= 1


def _proposal(
    new: Memory, neighbour: Memory, kind: EdgeKind, confidence: float, rationale: str
) -> EdgeProposal:
    src, dst = newer_first(new, neighbour)
    return EdgeProposal(src.id, dst.id, kind, confidence, rationale)


def estimated_tokens(question: str, max_output_tokens: int) -> int:
    # About four characters per token for English prose: a bound for the spend guard only.
    return (len(SYSTEM) + len(question)) // 4 + max_output_tokens
