"""Use cases on key/value memory: read, write (compare-and-set), delete and list the entries
of one node of the caller's scope tree. Who may: the policy (members and agents, no viewers);
where: the scope tree (reads where the view admits the node, writes where it can write).
Input is checked first (every problem at once), access second, as everywhere else."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed, NotFound
from memhive_domain.kv import (
    KvAddress,
    KvEntry,
    WriteRequest,
    address_of,
    decode_list_cursor,
    encode_list_cursor,
    page_limit,
    parse_node,
    plan_kv_delete,
    plan_kv_write,
)
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import can_read, can_write, write_refusal
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock
from memhive_ports.key_values import KeyValueStore


@dataclass(frozen=True, slots=True)
class KvListing:
    node: ScopeRef
    entries: list[KvEntry]
    next_cursor: str | None


class KeyValues:
    def __init__(self, store: KeyValueStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    async def get(self, principal: Principal, scope: str, key: str) -> KvEntry:
        require(principal, Action.READ_STATE)
        address = address_of(principal.workspace_id, scope, key)
        _require_readable(principal, address.node)
        entry = await self._store.get(address)
        if entry is None:
            raise _missing(address)
        return entry

    async def put(self, principal: Principal, request: WriteRequest) -> KvEntry:
        require(principal, Action.WRITE_STATE)
        write = plan_kv_write(principal.workspace_id, request, self._clock.now())
        _require_writable(principal, write.address.node)
        return await self._store.put(write, principal.user_id)

    async def delete(
        self,
        principal: Principal,
        scope: str,
        key: str,
        revision: int | None = None,
        if_match: str | None = None,
    ) -> KvAddress:
        require(principal, Action.WRITE_STATE)
        address, precondition = plan_kv_delete(
            principal.workspace_id, scope, key, revision, if_match
        )
        _require_writable(principal, address.node)
        if not await self._store.delete(address, precondition):
            raise _missing(address)
        return address

    async def list(
        self, principal: Principal, scope: str, cursor: str | None, limit: int
    ) -> KvListing:
        """One page of the node's entries, in the order they were last written."""
        require(principal, Action.READ_STATE)
        problems: list[FieldProblem] = []
        node = parse_node(scope, problems)
        after = decode_list_cursor(cursor, problems)
        limit = page_limit(limit, problems)
        if problems or node is None:
            raise InvalidInput(problems)
        _require_readable(principal, node)
        page = await self._store.list(principal.workspace_id, node, after, limit)
        more = None if page.next_after is None else encode_list_cursor(page.next_after)
        return KvListing(node, page.entries, more)


def _require_readable(principal: Principal, node: ScopeRef) -> None:
    if not can_read(principal, node):
        raise NotAllowed(f"scope {node.key!r} is outside this token's scope tree")


def _require_writable(principal: Principal, node: ScopeRef) -> None:
    if not can_write(principal, node):
        raise NotAllowed(f"cannot write key/value memory: {write_refusal(principal, node)}")


def _missing(address: KvAddress) -> NotFound:
    return NotFound("key", f"{address.node.key}/{address.key}")
