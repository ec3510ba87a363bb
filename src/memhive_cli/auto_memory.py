"""Claude Code's auto memory of a project shared through memhive: at the end of a session,
the memory files Claude Code keeps for the project (`<config>/projects/<project>/memory/`,
beside the session's transcript) are imported into a node, as `memhive import --format
claude-memory` would (`memhive_domain.exchange.claude_memory`).

Only what is about the work goes (`project` and `reference` memories, `TEAM_TYPES`): what
Claude Code remembers about its user (`user`) and how they like to work (`feedback`) stays
on their machine. Importing is idempotent: an unchanged file adds nothing, a rewritten one
supersedes what it made before.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MAX_FILES = 200  # a project's memory is a few dozen files
MAX_FILE_BYTES = 256 * 1024


def memory_dir(event: dict[str, Any]) -> Path | None:
    """The project's memory directory, beside the session's transcript; None when the
    transcript is not where Claude Code keeps a project's (`.../projects/<project>/`)."""
    transcript = event.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.endswith(".jsonl"):
        return None
    project = Path(transcript).parent
    if project.parent.name != "projects":
        return None
    return project / "memory"


async def share_auto_memory(event: dict[str, Any], node: str | None) -> str:
    """What was shared, in a line. Raises the client's failures (memhive down, refused)."""
    from memhive_domain.exchange.claude_memory import TEAM_TYPES, is_index, memory_type

    directory = memory_dir(event)
    if directory is None or not directory.is_dir():
        return "no auto memory for this project: nothing shared"
    files = sorted(p for p in directory.glob("*.md") if p.is_file() and not is_index(p.name))
    shared = {"created": 0, "skipped": 0}
    kept_here = 0
    from memhive_cli.gateway_access import gateway_http

    async with gateway_http(os.environ) as http:
        for file in files[:MAX_FILES]:
            text = file.read_bytes()[:MAX_FILE_BYTES].decode("utf-8", "replace")
            if memory_type(text) not in TEAM_TYPES:
                kept_here += 1
                continue
            summary = await _imported(http, file, text, node)
            shared = {k: shared[k] + int(summary.get(k, 0)) for k in shared}
    return (
        f"Claude Code's auto memory: {shared['created']} shared, {shared['skipped']} already "
        f"there, {kept_here} about you or how you work kept on this machine"
    )


async def _imported(http, file: Path, text: str, node: str | None) -> dict[str, Any]:
    """The import's summary line; the gateway's refusal raised as the client's error."""
    from memhive_client.errors import raise_for

    params = {"format": "claude-memory", "path": str(file)} | ({"scope_path": node} if node else {})
    answer = await http.post("/v1/import", params=params, content=text.encode())
    raise_for(answer)
    lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
    return next((line for line in reversed(lines) if line.get("type") == "summary"), {})
