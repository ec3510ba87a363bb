import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BulletinSource(_message.Message):
    __slots__ = ("id", "revision")
    ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    id: str
    revision: int
    def __init__(self, id: _Optional[str] = ..., revision: _Optional[int] = ...) -> None: ...

class BulletinRefreshed(_message.Message):
    __slots__ = ("event_id", "workspace_id", "scope", "product_id", "renderer", "token_count", "generated_at", "sources", "text", "fingerprint", "shown_memory_ids", "pinned_over_budget", "team_id", "agent_id")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    RENDERER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    GENERATED_AT_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    SHOWN_MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    PINNED_OVER_BUDGET_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    scope: _memory_pb2.Scope
    product_id: str
    renderer: str
    token_count: int
    generated_at: _timestamp_pb2.Timestamp
    sources: _containers.RepeatedCompositeFieldContainer[BulletinSource]
    text: str
    fingerprint: str
    shown_memory_ids: _containers.RepeatedScalarFieldContainer[str]
    pinned_over_budget: bool
    team_id: str
    agent_id: str
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., scope: _Optional[_Union[_memory_pb2.Scope, str]] = ..., product_id: _Optional[str] = ..., renderer: _Optional[str] = ..., token_count: _Optional[int] = ..., generated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., sources: _Optional[_Iterable[_Union[BulletinSource, _Mapping]]] = ..., text: _Optional[str] = ..., fingerprint: _Optional[str] = ..., shown_memory_ids: _Optional[_Iterable[str]] = ..., pinned_over_budget: _Optional[bool] = ..., team_id: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...
