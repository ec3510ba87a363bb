"""Memories for the query use case tests: valid UUID ids, one workspace, a fixed now."""

from __future__ import annotations

import uuid
from datetime import timedelta

from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal, Role
from memhive_domain.scopes import Visibility

from tests.fakes import T0
from tests.unit.domain.memory_factory import a_memory

NOW = T0 + timedelta(days=30)
MEMBER = Principal("ws", "u1")
VIEWER = Principal("ws", "reader", role=Role.VIEWER)


def mid(n: int) -> str:
    return str(uuid.UUID(int=n))


def memory(n: int, *, days_ago: int = 10, **changes: object) -> Memory:
    """A live private fact of workspace "ws"; public with visibility=Visibility.PUBLIC."""
    return a_memory(mid(n), at=NOW - timedelta(days=days_ago), **changes)


def public(n: int, **changes: object) -> Memory:
    return memory(n, visibility=Visibility.PUBLIC, **changes)


def updates(new: Memory, old: Memory) -> Edge:
    return Edge(new.id, old.id, EdgeKind.UPDATES, 1.0, "u1", CreatorKind.AGENT, "", new.created_at)
