import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import memory_pb2 as _memory_pb2
from memhive.v1 import requester_pb2 as _requester_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SaveMemory(_message.Message):
    __slots__ = ("command_id", "memory", "embedding", "requested_by", "requested_at", "restore", "history", "requester", "near_duplicate_check", "near_duplicates")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    RESTORE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATE_CHECK_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    memory: _memory_pb2.Memory
    embedding: _memory_pb2.Embedding
    requested_by: str
    requested_at: _timestamp_pb2.Timestamp
    restore: bool
    history: _containers.RepeatedCompositeFieldContainer[_memory_pb2.Memory]
    requester: _requester_pb2.Requester
    near_duplicate_check: float
    near_duplicates: _containers.RepeatedCompositeFieldContainer[_memory_pb2.Neighbour]
    def __init__(self, command_id: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.Memory, _Mapping]] = ..., embedding: _Optional[_Union[_memory_pb2.Embedding, _Mapping]] = ..., requested_by: _Optional[str] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., restore: _Optional[bool] = ..., history: _Optional[_Iterable[_Union[_memory_pb2.Memory, _Mapping]]] = ..., requester: _Optional[_Union[_requester_pb2.Requester, _Mapping]] = ..., near_duplicate_check: _Optional[float] = ..., near_duplicates: _Optional[_Iterable[_Union[_memory_pb2.Neighbour, _Mapping]]] = ...) -> None: ...

class UpdateMemory(_message.Message):
    __slots__ = ("command_id", "workspace_id", "memory_id", "requested_by", "requested_at", "pinned", "requester", "changes")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    PINNED_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    workspace_id: str
    memory_id: str
    requested_by: str
    requested_at: _timestamp_pb2.Timestamp
    pinned: bool
    requester: _requester_pb2.Requester
    changes: _memory_pb2.MemoryChanges
    def __init__(self, command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., requested_by: _Optional[str] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., pinned: _Optional[bool] = ..., requester: _Optional[_Union[_requester_pb2.Requester, _Mapping]] = ..., changes: _Optional[_Union[_memory_pb2.MemoryChanges, _Mapping]] = ...) -> None: ...

class PurgeMemory(_message.Message):
    __slots__ = ("command_id", "workspace_id", "memory_id", "expires_at", "due_at")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    DUE_AT_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    workspace_id: str
    memory_id: str
    expires_at: _timestamp_pb2.Timestamp
    due_at: _timestamp_pb2.Timestamp
    def __init__(self, command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., due_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ForgetMemory(_message.Message):
    __slots__ = ("command_id", "workspace_id", "memory_id", "requested_by", "reason", "requested_at", "requester")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    workspace_id: str
    memory_id: str
    requested_by: str
    reason: str
    requested_at: _timestamp_pb2.Timestamp
    requester: _requester_pb2.Requester
    def __init__(self, command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., requested_by: _Optional[str] = ..., reason: _Optional[str] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requester: _Optional[_Union[_requester_pb2.Requester, _Mapping]] = ...) -> None: ...
