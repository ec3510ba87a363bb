import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import memory_pb2 as _memory_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Product(_message.Message):
    __slots__ = ("workspace_id", "product_id", "name", "visibility", "updated_by", "updated_at")
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BY_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    workspace_id: str
    product_id: str
    name: str
    visibility: _memory_pb2.Visibility
    updated_by: str
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, workspace_id: _Optional[str] = ..., product_id: _Optional[str] = ..., name: _Optional[str] = ..., visibility: _Optional[_Union[_memory_pb2.Visibility, str]] = ..., updated_by: _Optional[str] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
