"""Crystallizing procedures into a skill: a `SKILL.md` (YAML front matter, the steps, and where
they came from) an agent runtime can load, and when a procedure has earned it.

A procedure earns promotion by being confirmed (agents reported it worked) at least
PROMOTION_THRESHOLD times without a standing `wrong` flag; crystallizing marks it promoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime

from memhive_domain.curation import FlagKind
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.text import checked_text

PROMOTION_THRESHOLD = 3
SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME_CHARS, MAX_DESCRIPTION_CHARS = 64, 1024
_STEP_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")


def is_promotion_candidate(memory: Memory, threshold: int = PROMOTION_THRESHOLD) -> bool:
    state = memory.curation
    return (
        memory.kind is MemoryKind.PROCEDURE
        and state.promoted_at is None
        and state.confirmations >= threshold
        and not any(f.kind is FlagKind.WRONG for f in state.flags)
    )


def checked_procedures(memories: Sequence[Memory]) -> None:
    if bad := [m.id for m in memories if m.kind is not MemoryKind.PROCEDURE]:
        raise InvalidInput([FieldProblem("ids", f"only procedures become skills, not {bad}")])


def skill_name(name: str | None, first: Memory) -> str:
    """The given name (lowercase words joined by '-', at most 64), else one from the body."""
    if name is None:
        words = re.findall(r"[a-z0-9]+", first.body.lower())[:6]
        return "-".join(words)[:MAX_NAME_CHARS].strip("-") or "procedure"
    if len(name) > MAX_NAME_CHARS or not SKILL_NAME.match(name):
        message = "lowercase letters and digits in words joined by '-', at most 64 characters"
        raise InvalidInput([FieldProblem("name", message)])
    return name


def skill_description(description: str | None, procedures: Sequence[Memory]) -> str:
    if description is None:
        return " ".join(procedures[0].body.split())[:MAX_DESCRIPTION_CHARS]
    problems: list[FieldProblem] = []
    text = checked_text("description", description, MAX_DESCRIPTION_CHARS, problems, required=True)
    if problems:
        raise InvalidInput(problems)
    return text


def render_skill(
    name: str, description: str, procedures: Sequence[Memory], crystallized_at: datetime
) -> str:
    """SKILL.md: front matter (name, description, provenance), then each procedure's steps."""
    front = [
        f"name: {name}",
        f"description: {_scalar(description)}",
        "metadata:",
        "  source: memhive",
        f"  crystallized_at: {_scalar(crystallized_at.isoformat())}",
        "  memories:",
        *(f"    - {_scalar(_provenance(m))}" for m in procedures),
    ]
    header = "\n".join(front) + "\n"
    sections = [_section(n, m) for n, m in enumerate(procedures, 1)]
    title = name.replace("-", " ").capitalize()
    return f"---\n{header}---\n\n# {title}\n\n" + "\n\n".join(sections) + "\n"


def steps_of(body: str) -> list[str]:
    """Numbered or bulleted lines are steps; otherwise each sentence is one."""
    lines = [line for line in body.splitlines() if line.strip()]
    if len(lines) > 1 and any(_STEP_MARK.match(line) for line in lines):
        return [_STEP_MARK.sub("", line).strip() for line in lines]
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(body.split()))
    return [s for s in sentences if s]


def _section(number: int, memory: Memory) -> str:
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(steps_of(memory.body), 1))
    heading = "## Steps" if number == 1 else f"## Steps ({number})"
    return f"{heading}\n\n{steps}\n\n_Source: memory `{memory.id}` revision {memory.revision}._"


def _provenance(memory: Memory) -> dict:
    return {
        "id": memory.id,
        "revision": memory.revision,
        "scope": memory.scope_ref.key,
        "created_by": memory.created_by,
        "created_at": memory.created_at.isoformat(),
        "confirmations": memory.curation.confirmations,
    }


def _scalar(value: object) -> str:
    """JSON is valid YAML: quoting with it keeps any text (':', '#', newlines) one value,
    without a YAML dependency in the domain."""
    return json.dumps(value, ensure_ascii=False)
