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
import time
from pathlib import Path
from typing import Any

from memhive_cli.hook_request import post

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


def share_auto_memory(
    event: dict[str, Any], node: str | None, *, url: str, token: str, timeout_s: float
) -> str:
    """What was shared, in a line. Raises what `hook_request.post` raises, and TimeoutError
    once `timeout_s` in all has passed."""
    from memhive_domain.exchange.claude_memory import TEAM_TYPES, is_index, memory_type

    directory = memory_dir(event)
    if directory is None or not directory.is_dir():
        return "no auto memory for this project: nothing shared"
    files = sorted(p for p in directory.glob("*.md") if p.is_file() and not is_index(p.name))
    deadline = time.monotonic() + timeout_s
    shared = {"created": 0, "skipped": 0}
    kept_here = 0
    for file in files[:MAX_FILES]:
        text = file.read_bytes()[:MAX_FILE_BYTES].decode("utf-8", "replace")
        if memory_type(text) not in TEAM_TYPES:
            kept_here += 1
            continue
        params = {"format": "claude-memory", "path": str(file)} | (
            {"scope_path": node} if node else {}
        )
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        report = post(url, "/v1/import", token=token, params=params, content=text.encode(),
                      content_type="text/plain; charset=utf-8", timeout_s=left)  # fmt: skip
        summary = _summary(report)
        shared = {k: shared[k] + int(summary.get(k, 0)) for k in shared}
    return (
        f"Claude Code's auto memory: {shared['created']} shared, {shared['skipped']} already "
        f"there, {kept_here} about you or how you work kept on this machine"
    )


def _summary(report: bytes) -> dict[str, Any]:
    """The import report's summary line (one JSON object per line)."""
    lines = [json.loads(line) for line in report.decode().splitlines() if line.strip()]
    return next((line for line in reversed(lines) if line.get("type") == "summary"), {})
