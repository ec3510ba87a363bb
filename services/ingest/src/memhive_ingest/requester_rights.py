"""Ingest checks the scope-tree rights of a command's requester again (the gateway checked
them first): commands are applied from the bus, where the gateway is one sender among
others. A command that states no requester (older senders, the link classifier, which links
two memories of one node) is applied as before: the bus's permissions decide who may
publish commands at all."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from memhive_domain.errors import NotAllowed
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import ensure_writable, reads_memory
from memhive_ports.poison import Poison


def ensure_may_write(requester: Principal | None, memory: Memory, doing: str) -> None:
    """Poison (dead-lettered, never retried) unless the requester reads the memory and
    writes its node."""
    if requester is not None:
        with _poison(requester):
            ensure_reads(requester, memory, doing)
            ensure_writable(requester, memory.scope_ref, doing)


@contextmanager
def _poison(requester: Principal) -> Iterator[None]:
    try:
        yield
    except NotAllowed as refused:
        raise Poison(f"requester {requester.user_id!r}: {refused}") from None


def ensure_reads(requester: Principal, memory: Memory, doing: str) -> None:
    if not reads_memory(requester, memory.scope_ref, memory.visibility):
        raise NotAllowed(f"cannot {doing}: memory {memory.id} is outside its view")
