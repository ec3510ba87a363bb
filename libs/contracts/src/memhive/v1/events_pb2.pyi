import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemorySaved(_message.Message):
    __slots__ = ("event_id", "command_id", "memory", "embedding", "occurred_at", "requested_by", "near_duplicate_check", "near_duplicates")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATE_CHECK_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    command_id: str
    memory: _memory_pb2.Memory
    embedding: _memory_pb2.Embedding
    occurred_at: _timestamp_pb2.Timestamp
    requested_by: str
    near_duplicate_check: float
    near_duplicates: _containers.RepeatedCompositeFieldContainer[_memory_pb2.Neighbour]
    def __init__(self, event_id: _Optional[str] = ..., command_id: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.Memory, _Mapping]] = ..., embedding: _Optional[_Union[_memory_pb2.Embedding, _Mapping]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requested_by: _Optional[str] = ..., near_duplicate_check: _Optional[float] = ..., near_duplicates: _Optional[_Iterable[_Union[_memory_pb2.Neighbour, _Mapping]]] = ...) -> None: ...

class MemoryIndexed(_message.Message):
    __slots__ = ("event_id", "memory", "embedding", "occurred_at", "near_duplicate_check", "near_duplicates")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATE_CHECK_FIELD_NUMBER: _ClassVar[int]
    NEAR_DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    memory: _memory_pb2.Memory
    embedding: _memory_pb2.Embedding
    occurred_at: _timestamp_pb2.Timestamp
    near_duplicate_check: float
    near_duplicates: _containers.RepeatedCompositeFieldContainer[_memory_pb2.Neighbour]
    def __init__(self, event_id: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.Memory, _Mapping]] = ..., embedding: _Optional[_Union[_memory_pb2.Embedding, _Mapping]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., near_duplicate_check: _Optional[float] = ..., near_duplicates: _Optional[_Iterable[_Union[_memory_pb2.Neighbour, _Mapping]]] = ...) -> None: ...

class MemoriesIndexed(_message.Message):
    __slots__ = ("event_id", "indexed")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    INDEXED_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    indexed: _containers.RepeatedCompositeFieldContainer[MemoryIndexed]
    def __init__(self, event_id: _Optional[str] = ..., indexed: _Optional[_Iterable[_Union[MemoryIndexed, _Mapping]]] = ...) -> None: ...

class MemoryForgotten(_message.Message):
    __slots__ = ("event_id", "command_id", "memory", "reason", "occurred_at", "requested_by")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    command_id: str
    memory: _memory_pb2.Memory
    reason: str
    occurred_at: _timestamp_pb2.Timestamp
    requested_by: str
    def __init__(self, event_id: _Optional[str] = ..., command_id: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.Memory, _Mapping]] = ..., reason: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requested_by: _Optional[str] = ...) -> None: ...

class MemoryPurged(_message.Message):
    __slots__ = ("event_id", "command_id", "workspace_id", "memory_id", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    command_id: str
    workspace_id: str
    memory_id: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MemoryUnindexed(_message.Message):
    __slots__ = ("event_id", "workspace_id", "memory_id", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    memory_id: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MemoriesRecalled(_message.Message):
    __slots__ = ("event_id", "workspace_id", "principal_id", "query", "memory_ids", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    principal_id: str
    query: str
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., principal_id: _Optional[str] = ..., query: _Optional[str] = ..., memory_ids: _Optional[_Iterable[str]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
