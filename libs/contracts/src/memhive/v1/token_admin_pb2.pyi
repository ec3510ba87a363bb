import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateToken(_message.Message):
    __slots__ = ("credential", "user_id", "role", "name", "home", "acting_for", "expires_in", "expires_at")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    ACTING_FOR_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    credential: str
    user_id: str
    role: str
    name: str
    home: str
    acting_for: str
    expires_in: str
    expires_at: str
    def __init__(self, credential: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ..., name: _Optional[str] = ..., home: _Optional[str] = ..., acting_for: _Optional[str] = ..., expires_in: _Optional[str] = ..., expires_at: _Optional[str] = ...) -> None: ...

class RevokeToken(_message.Message):
    __slots__ = ("credential", "token_id")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    credential: str
    token_id: str
    def __init__(self, credential: _Optional[str] = ..., token_id: _Optional[str] = ...) -> None: ...

class RotateToken(_message.Message):
    __slots__ = ("credential", "token_id", "grace")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    GRACE_FIELD_NUMBER: _ClassVar[int]
    credential: str
    token_id: str
    grace: str
    def __init__(self, credential: _Optional[str] = ..., token_id: _Optional[str] = ..., grace: _Optional[str] = ...) -> None: ...

class TokenInfo(_message.Message):
    __slots__ = ("id", "workspace_id", "user_id", "role", "name", "home", "acting_for", "created_at", "created_by", "expires_at", "rotated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    ACTING_FOR_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ROTATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    workspace_id: str
    user_id: str
    role: str
    name: str
    home: str
    acting_for: str
    created_at: _timestamp_pb2.Timestamp
    created_by: str
    expires_at: _timestamp_pb2.Timestamp
    rotated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ..., name: _Optional[str] = ..., home: _Optional[str] = ..., acting_for: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_by: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rotated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TokenProblem(_message.Message):
    __slots__ = ("field", "message")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    field: str
    message: str
    def __init__(self, field: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class TokenAnswer(_message.Message):
    __slots__ = ("token", "secret", "error", "reason", "problems")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    token: TokenInfo
    secret: str
    error: str
    reason: str
    problems: _containers.RepeatedCompositeFieldContainer[TokenProblem]
    def __init__(self, token: _Optional[_Union[TokenInfo, _Mapping]] = ..., secret: _Optional[str] = ..., error: _Optional[str] = ..., reason: _Optional[str] = ..., problems: _Optional[_Iterable[_Union[TokenProblem, _Mapping]]] = ...) -> None: ...
