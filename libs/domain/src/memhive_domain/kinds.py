"""Memory kinds and the importance each gets when the caller does not say."""

from __future__ import annotations

from enum import StrEnum


class MemoryKind(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    DECISION = "decision"
    IDENTITY = "identity"
    EVENT = "event"
    OBSERVATION = "observation"
    GOAL = "goal"
    TODO = "todo"
    PROCEDURE = "procedure"


# Who we are and what we decided outlive what we merely noticed.
DEFAULT_IMPORTANCE: dict[MemoryKind, float] = {
    MemoryKind.IDENTITY: 0.9,
    MemoryKind.DECISION: 0.8,
    MemoryKind.PREFERENCE: 0.7,
    MemoryKind.GOAL: 0.7,
    MemoryKind.PROCEDURE: 0.7,
    MemoryKind.FACT: 0.6,
    MemoryKind.TODO: 0.6,
    MemoryKind.EVENT: 0.5,
    MemoryKind.OBSERVATION: 0.4,
}
