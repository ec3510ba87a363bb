"""Claude Code's auto memory (`~/.claude/projects/<project>/memory/`): a file per memory,
written by the model, its front matter saying what it is; `MEMORY.md` only indexes them.

    ---
    name: deploy-days
    description: Deploys go out on Tuesdays and Thursdays only
    metadata:
      type: project
    ---
    Friday deploys stopped after the March outage.
    **Why:** ...

A file becomes one memory: its description then its text (the why and how stay with the
fact), its kind by its type (user: identity, feedback: preference, reference: fact, project
and an untyped file: guessed from the words), tagged `claude-memory` and
`claude-memory:<type>`, at the node imported into, with its visibility. `source_ref` is
`claude-memory/<name>`. The file is known again by a digest of its path (an entry kept
beside the memory, as for mem0's ids), so a file rewritten since the last import supersedes
what that import made of it, and nobody else's file of the same name does. Which types to
share is the caller's choice (`memhive hook claude-code --share-auto-memory` shares only
`project` and `reference`: `TEAM_TYPES`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

from memhive_domain.exchange.items import ImportFile, ImportItem, KeptEntry
from memhive_domain.exchange.kinds import guess_kind
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MemoryDraft
from memhive_domain.scopes import ScopeRef
from memhive_domain.sources import Source
from memhive_domain.text import has_visible_content

INDEX_FILE = "MEMORY.md"
TAG = "claude-memory"
_KINDS = {
    "user": MemoryKind.IDENTITY,
    "feedback": MemoryKind.PREFERENCE,
    "reference": MemoryKind.FACT,
}
TYPES = frozenset({"user", "feedback", "project", "reference"})
TEAM_TYPES = frozenset({"project", "reference"})  # about the work, not about its user
_FIELD = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_-]*):\s*(.*?)\s*$")
_NAME = re.compile(r"[^a-z0-9._-]+")
MAX_FRONT_MATTER_LINES = 100


def is_index(path: str) -> bool:
    return PurePosixPath(path).name.lower() == INDEX_FILE.lower()


def parse_claude_memory(path: str, text: str, base: ScopeRef) -> ImportFile:
    """Any text parses (a file without front matter is an untyped memory); a body the save
    refuses (over 4000 characters, say) is reported by the import naming its line."""
    if is_index(path):
        return ImportFile((), notes=(f"{INDEX_FILE} indexes the memory files: import those",))
    lines = text.splitlines()
    fields, first_line = _front_matter(lines)
    description, kind_of = fields.get("description", ""), fields.get("type", "").lower()
    rest = "\n".join(lines[first_line:]).strip()
    said = [description] if description and description not in rest else []
    body = "\n\n".join([*said, rest]).strip()
    if not has_visible_content(body):
        return ImportFile((), notes=(f"{path}: no text: left out",))
    name = _NAME.sub("-", (fields.get("name") or PurePosixPath(path).stem).lower()).strip("-")
    known = kind_of if kind_of in TYPES else ""
    draft = MemoryDraft(
        kind=_KINDS.get(known) or guess_kind(body),
        body=body,
        tags=(TAG, f"{TAG}:{known}") if known else (TAG,),
        scope_path=base.key,
        source=Source.AGENT,
        source_ref=f"{TAG}/{name or 'memory'}"[:200],
    )
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    kept = KeptEntry(f"{TAG}.{digest}", {"name": name, "type": known})
    return ImportFile((ImportItem(line=first_line + 1, draft=draft, kept=kept),))


def memory_type(text: str) -> str:
    """The type a memory file's front matter gives it ("" for none or another)."""
    kind_of = _front_matter(text.splitlines())[0].get("type", "").lower()
    return kind_of if kind_of in TYPES else ""


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """Its fields (one level of nesting read through: `metadata: type:` is `type`), and the
    index of the first line after it; ({}, 0) without front matter."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    fields: dict[str, str] = {}
    for index in range(1, min(len(lines), MAX_FRONT_MATTER_LINES)):
        if lines[index].strip() == "---":
            return fields, index + 1
        if (found := _FIELD.match(lines[index])) and found.group(3):
            fields.setdefault(found.group(2).lower(), _unquoted(found.group(3)))
    return {}, 0  # never closed: not front matter, all of it text


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
