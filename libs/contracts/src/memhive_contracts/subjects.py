"""Every NATS subject memhive uses, in one place. The workspace id is always the last token,
so consumers and replays can select one workspace with a subject filter."""

from __future__ import annotations

SAVE_MEMORY = "memhive.cmd.memory.save"
FORGET_MEMORY = "memhive.cmd.memory.forget"
MEMORY_SAVED = "memhive.evt.memory.saved"
MEMORY_INDEXED = "memhive.evt.memory.indexed"
MEMORY_FORGOTTEN = "memhive.evt.memory.forgotten"
MEMORY_UNINDEXED = "memhive.evt.memory.unindexed"
MEMORIES_RECALLED = "memhive.activity.recalled"
DEAD_LETTER = "memhive.dlq"

ALL_MEMORY_EVENTS = "memhive.evt.memory.>"


def for_workspace(subject: str, workspace_id: str) -> str:
    return f"{subject}.{workspace_id}"


def any_workspace(subject: str) -> str:
    return f"{subject}.*"


def workspace_of(subject: str) -> str:
    return subject.rsplit(".", 1)[-1]


def dead_letter(consumer: str) -> str:
    return f"{DEAD_LETTER}.{consumer}"
