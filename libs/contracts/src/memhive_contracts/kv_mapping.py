"""Mapping between key/value entries and their protobuf record (KV bucket memhive_kv)."""

from __future__ import annotations

from datetime import datetime

from memhive.v1 import kv_pb2 as pb
from memhive_domain.kv import KvAddress, KvEntry, KvWrite
from memhive_domain.scopes import parse_scope_path

from memhive_contracts.mapping import from_timestamp, to_timestamp


def kv_entry_to_pb(write: KvWrite, updated_by: str, updated_at: datetime) -> pb.KvEntry:
    address = write.address
    message = pb.KvEntry(
        workspace_id=address.workspace_id,
        scope_path=address.node.key,
        key=address.key,
        value_json=write.value_json,
        updated_by=updated_by,
        updated_at=to_timestamp(updated_at),
    )
    if write.expires_at is not None:
        message.expires_at.CopyFrom(to_timestamp(write.expires_at))
    return message


def kv_entry_from_pb(message: pb.KvEntry, revision: int) -> KvEntry:
    """`revision`: the bucket's revision of the message (not part of the record itself)."""
    node = parse_scope_path(message.scope_path, [])
    updated_at = from_timestamp(message.updated_at, message.HasField("updated_at"))
    if node is None or updated_at is None:
        raise ValueError(f"not a key/value entry: {message.scope_path!r}")
    return KvEntry(
        address=KvAddress(message.workspace_id, node, message.key),
        value_json=message.value_json,
        revision=revision,
        updated_by=message.updated_by,
        updated_at=updated_at,
        expires_at=from_timestamp(message.expires_at, message.HasField("expires_at")),
    )
