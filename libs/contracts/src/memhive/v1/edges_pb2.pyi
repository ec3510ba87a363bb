import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import requester_pb2 as _requester_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EdgeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDGE_KIND_UNSPECIFIED: _ClassVar[EdgeKind]
    EDGE_KIND_RELATED_TO: _ClassVar[EdgeKind]
    EDGE_KIND_UPDATES: _ClassVar[EdgeKind]
    EDGE_KIND_CONTRADICTS: _ClassVar[EdgeKind]

class CreatorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CREATOR_KIND_UNSPECIFIED: _ClassVar[CreatorKind]
    CREATOR_KIND_AGENT: _ClassVar[CreatorKind]
    CREATOR_KIND_USER: _ClassVar[CreatorKind]
    CREATOR_KIND_CLASSIFIER: _ClassVar[CreatorKind]
EDGE_KIND_UNSPECIFIED: EdgeKind
EDGE_KIND_RELATED_TO: EdgeKind
EDGE_KIND_UPDATES: EdgeKind
EDGE_KIND_CONTRADICTS: EdgeKind
CREATOR_KIND_UNSPECIFIED: CreatorKind
CREATOR_KIND_AGENT: CreatorKind
CREATOR_KIND_USER: CreatorKind
CREATOR_KIND_CLASSIFIER: CreatorKind

class Edge(_message.Message):
    __slots__ = ("src_id", "dst_id", "kind", "weight", "created_by", "creator_kind", "rationale", "created_at")
    SRC_ID_FIELD_NUMBER: _ClassVar[int]
    DST_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATOR_KIND_FIELD_NUMBER: _ClassVar[int]
    RATIONALE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    src_id: str
    dst_id: str
    kind: EdgeKind
    weight: float
    created_by: str
    creator_kind: CreatorKind
    rationale: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, src_id: _Optional[str] = ..., dst_id: _Optional[str] = ..., kind: _Optional[_Union[EdgeKind, str]] = ..., weight: _Optional[float] = ..., created_by: _Optional[str] = ..., creator_kind: _Optional[_Union[CreatorKind, str]] = ..., rationale: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LinkMemories(_message.Message):
    __slots__ = ("command_id", "workspace_id", "edges", "requested_by", "requested_at", "requester")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    workspace_id: str
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    requested_by: str
    requested_at: _timestamp_pb2.Timestamp
    requester: _requester_pb2.Requester
    def __init__(self, command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., requested_by: _Optional[str] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requester: _Optional[_Union[_requester_pb2.Requester, _Mapping]] = ...) -> None: ...

class MemoriesLinked(_message.Message):
    __slots__ = ("event_id", "command_id", "workspace_id", "edges", "occurred_at", "rejected")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    command_id: str
    workspace_id: str
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    occurred_at: _timestamp_pb2.Timestamp
    rejected: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, event_id: _Optional[str] = ..., command_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rejected: _Optional[_Iterable[str]] = ...) -> None: ...
