"""What mem0's `Memory.get_all` returns (`{"results": [...]}`, or the bare list older versions
gave), as memories of the scope tree (the table is in docs/architecture.md, "Import and export"):

- `memory`: the body; its kind guessed from its words (`kinds.guess_kind`), `procedure` for
  mem0's procedural memories;
- `user_id`: a team node below the node imported into (`team:<user_id>`); `agent_id`: that
  agent's node below it (`.../agent:<agent_id>`); `run_id`: the tag `run:<run_id>` (the tree
  has no level for one session);
- `id`: `source_ref` `mem0:<id>`, so a second import finds what the first created;
- everything else mem0 keeps (`metadata`, `hash`, `created_at`, `updated_at`, `actor_id`,
  `role`): the key/value entry `mem0.<id>` at the memory's node; `metadata.categories` also
  as tags; `expiration_date`: `expires_at` (an expired memory is left out, with a note).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, time
from typing import Any

from memhive_domain.errors import FieldProblem
from memhive_domain.exchange.items import ImportFile, ImportItem, KeptEntry, LineProblems
from memhive_domain.exchange.kinds import guess_kind
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MemoryDraft
from memhive_domain.scopes import NODE_ID_PATTERN, ScopeRef
from memhive_domain.sources import Source

KEPT_FIELDS = (
    "id",
    "hash",
    "created_at",
    "updated_at",
    "user_id",
    "agent_id",
    "run_id",
    "actor_id",
    "role",
    "metadata",
)
_NOT_TAG = re.compile(r"[^a-z0-9._:/-]+")


def parse_get_all(text: str, base: ScopeRef, now: datetime) -> ImportFile:
    problems = LineProblems("mem0 get_all JSON")
    try:
        document = json.loads(text)
    except ValueError as bad:
        problems.add(getattr(bad, "lineno", 1), f"not JSON ({bad})")
        problems.raise_if_any()
    results = document.get("results") if isinstance(document, dict) else document
    if not isinstance(results, list):
        problems.add(1, 'expected mem0\'s get_all answer: {"results": [...]} or a list')
        problems.raise_if_any()
    items, notes = [], []
    lines = _EntryLines(text)
    for index, entry in enumerate(results):
        item = _item(entry, index, lines.of(entry), base, now, problems, notes)
        if item is not None:
            items.append(item)
    problems.raise_if_any()
    return ImportFile(tuple(items), notes=tuple(notes))


def _item(entry, index, line, base, now, problems: LineProblems, notes) -> ImportItem | None:
    where = f"results[{index}]"
    if not isinstance(entry, dict):
        problems.add(line, [FieldProblem(where, "must be a JSON object")])
        return None
    found: list[FieldProblem] = []
    mem0_id = entry.get("id")
    if not isinstance(mem0_id, str) or not re.fullmatch(r"[A-Za-z0-9._:-]{1,100}", mem0_id):
        found.append(FieldProblem(f"{where}.id", "must be mem0's id (letters, digits, -)"))
    node = _node(entry, base, where, found)
    expires_at = _expiry(entry.get("expiration_date"), where, found)
    if found:
        problems.add(line, found)
        return None
    if expires_at is not None and expires_at <= now:
        notes.append(f"line {line}: mem0 memory {mem0_id} expired on {expires_at.date()}: left out")
        return None
    body = entry.get("memory")
    metadata = entry.get("metadata") if isinstance(entry.get("metadata"), dict) else {}
    draft = MemoryDraft(
        kind=_kind(body, metadata),
        body=body if isinstance(body, str) else "",
        tags=_tags(entry, metadata),
        scope_path=node.key if node else None,
        source=Source.AGENT,
        source_ref=f"mem0:{mem0_id}",
        expires_at=expires_at,
    )
    kept = KeptEntry(f"mem0.{mem0_id}", {k: entry[k] for k in KEPT_FIELDS if k in entry})
    return ImportItem(line=line, draft=draft, kept=kept)


def _node(entry: dict, base: ScopeRef, where: str, found: list[FieldProblem]) -> ScopeRef | None:
    team, agent = base.team_id, base.agent_id
    for field, level in (("user_id", "team"), ("agent_id", "agent")):
        value = entry.get(field)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or not NODE_ID_PATTERN.match(value):
            found.append(
                FieldProblem(
                    f"{where}.{field}",
                    "must be 1-64 letters, digits, "
                    "'.', '_', '@' or '-' to name a node of the scope tree",
                )
            )
            continue
        if (team if level == "team" else agent) is not None or (level == "team" and agent):
            found.append(
                FieldProblem(
                    f"{where}.{field}",
                    f"the node imported into ({base.key}) has no {level} level left below it",
                )
            )
            continue
        team, agent = (value, agent) if level == "team" else (team, value)
    return ScopeRef(base.scope, base.product_id, team, agent)


def _kind(body: object, metadata: dict) -> MemoryKind:
    if metadata.get("memory_type") == "procedural_memory":
        return MemoryKind.PROCEDURE
    return guess_kind(body if isinstance(body, str) else "")


def _tags(entry: dict, metadata: dict) -> tuple[str, ...]:
    tags = ["mem0"]
    if isinstance(run := entry.get("run_id"), str) and run:
        tags.append(_tag(f"run:{run}"))
    categories = metadata.get("categories")
    if isinstance(categories, list):
        tags += [_tag(c) for c in categories if isinstance(c, str) and _tag(c)]
    return tuple(dict.fromkeys(t for t in tags if t))[:32]


def _tag(text: str) -> str:
    return _NOT_TAG.sub("-", text.strip().lower()).strip("-._:/")[:64]


def _expiry(value: object, where: str, found: list[FieldProblem]) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        found.append(FieldProblem(f"{where}.expiration_date", f"not a date: {value!r}"))
        return None
    if isinstance(moment, datetime) and len(str(value)) <= 10:  # a date: the end of that day
        moment = datetime.combine(date.fromisoformat(str(value)), time.max, UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class _EntryLines:
    """The line each entry starts on, found by its id (JSON gives no positions). Entries come
    in the file's order, so each id is looked for after the last one found: the file is read
    once, however many entries it has (searching from its start each time took minutes)."""

    def __init__(self, text: str) -> None:
        self._text, self._at, self._line = text, 0, 1

    def of(self, entry: Any) -> int:
        """An entry without an id found gets the line the search stands at."""
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            quoted = json.dumps(entry["id"])
            at = self._text.find(quoted, self._at)
            if at >= 0:
                self._line += self._text.count("\n", self._at, at)
                self._at = at + len(quoted)  # past it: the next entry may have the same id
        return self._line
