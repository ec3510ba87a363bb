"""Where a memory came from."""

from __future__ import annotations

from enum import StrEnum


class Source(StrEnum):
    AGENT = "agent"
    ISSUE = "issue"
    COMMENT = "comment"
    JOB = "job"
    NOTE = "note"
    KNOWLEDGE = "knowledge"
