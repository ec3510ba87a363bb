import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memhive.v1 import edges_pb2 as _edges_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemoryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_KIND_UNSPECIFIED: _ClassVar[MemoryKind]
    MEMORY_KIND_FACT: _ClassVar[MemoryKind]
    MEMORY_KIND_PREFERENCE: _ClassVar[MemoryKind]
    MEMORY_KIND_DECISION: _ClassVar[MemoryKind]
    MEMORY_KIND_IDENTITY: _ClassVar[MemoryKind]
    MEMORY_KIND_EVENT: _ClassVar[MemoryKind]
    MEMORY_KIND_OBSERVATION: _ClassVar[MemoryKind]
    MEMORY_KIND_GOAL: _ClassVar[MemoryKind]
    MEMORY_KIND_TODO: _ClassVar[MemoryKind]
    MEMORY_KIND_PROCEDURE: _ClassVar[MemoryKind]

class Scope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCOPE_UNSPECIFIED: _ClassVar[Scope]
    SCOPE_GLOBAL: _ClassVar[Scope]
    SCOPE_PRODUCT: _ClassVar[Scope]

class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VISIBILITY_UNSPECIFIED: _ClassVar[Visibility]
    VISIBILITY_PUBLIC: _ClassVar[Visibility]
    VISIBILITY_PRIVATE: _ClassVar[Visibility]

class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_UNSPECIFIED: _ClassVar[Source]
    SOURCE_AGENT: _ClassVar[Source]
    SOURCE_ISSUE: _ClassVar[Source]
    SOURCE_COMMENT: _ClassVar[Source]
    SOURCE_JOB: _ClassVar[Source]
    SOURCE_NOTE: _ClassVar[Source]
    SOURCE_KNOWLEDGE: _ClassVar[Source]

class FlagKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FLAG_KIND_UNSPECIFIED: _ClassVar[FlagKind]
    FLAG_KIND_WRONG: _ClassVar[FlagKind]
    FLAG_KIND_OUTDATED: _ClassVar[FlagKind]
    FLAG_KIND_UNVERIFIED: _ClassVar[FlagKind]

class AuthorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUTHOR_KIND_UNSPECIFIED: _ClassVar[AuthorKind]
    AUTHOR_KIND_USER: _ClassVar[AuthorKind]
    AUTHOR_KIND_AGENT: _ClassVar[AuthorKind]
    AUTHOR_KIND_UPSTREAM: _ClassVar[AuthorKind]
MEMORY_KIND_UNSPECIFIED: MemoryKind
MEMORY_KIND_FACT: MemoryKind
MEMORY_KIND_PREFERENCE: MemoryKind
MEMORY_KIND_DECISION: MemoryKind
MEMORY_KIND_IDENTITY: MemoryKind
MEMORY_KIND_EVENT: MemoryKind
MEMORY_KIND_OBSERVATION: MemoryKind
MEMORY_KIND_GOAL: MemoryKind
MEMORY_KIND_TODO: MemoryKind
MEMORY_KIND_PROCEDURE: MemoryKind
SCOPE_UNSPECIFIED: Scope
SCOPE_GLOBAL: Scope
SCOPE_PRODUCT: Scope
VISIBILITY_UNSPECIFIED: Visibility
VISIBILITY_PUBLIC: Visibility
VISIBILITY_PRIVATE: Visibility
SOURCE_UNSPECIFIED: Source
SOURCE_AGENT: Source
SOURCE_ISSUE: Source
SOURCE_COMMENT: Source
SOURCE_JOB: Source
SOURCE_NOTE: Source
SOURCE_KNOWLEDGE: Source
FLAG_KIND_UNSPECIFIED: FlagKind
FLAG_KIND_WRONG: FlagKind
FLAG_KIND_OUTDATED: FlagKind
FLAG_KIND_UNVERIFIED: FlagKind
AUTHOR_KIND_UNSPECIFIED: AuthorKind
AUTHOR_KIND_USER: AuthorKind
AUTHOR_KIND_AGENT: AuthorKind
AUTHOR_KIND_UPSTREAM: AuthorKind

class Memory(_message.Message):
    __slots__ = ("id", "workspace_id", "kind", "body", "importance", "pinned", "tags", "scope", "product_id", "visibility", "source", "source_ref", "created_by", "expires_at", "access_count", "last_accessed_at", "forgotten", "forgotten_at", "revision", "created_at", "updated_at", "team_id", "agent_id", "occurred_at", "curation", "mentions")
    ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    PINNED_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    FORGOTTEN_AT_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    CURATION_FIELD_NUMBER: _ClassVar[int]
    MENTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    workspace_id: str
    kind: MemoryKind
    body: str
    importance: float
    pinned: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    scope: Scope
    product_id: str
    visibility: Visibility
    source: Source
    source_ref: str
    created_by: str
    expires_at: _timestamp_pb2.Timestamp
    access_count: int
    last_accessed_at: _timestamp_pb2.Timestamp
    forgotten: bool
    forgotten_at: _timestamp_pb2.Timestamp
    revision: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    team_id: str
    agent_id: str
    occurred_at: _timestamp_pb2.Timestamp
    curation: MemoryCuration
    mentions: MemoryMentions
    def __init__(self, id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., kind: _Optional[_Union[MemoryKind, str]] = ..., body: _Optional[str] = ..., importance: _Optional[float] = ..., pinned: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ..., scope: _Optional[_Union[Scope, str]] = ..., product_id: _Optional[str] = ..., visibility: _Optional[_Union[Visibility, str]] = ..., source: _Optional[_Union[Source, str]] = ..., source_ref: _Optional[str] = ..., created_by: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., access_count: _Optional[int] = ..., last_accessed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., forgotten: _Optional[bool] = ..., forgotten_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revision: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., team_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., curation: _Optional[_Union[MemoryCuration, _Mapping]] = ..., mentions: _Optional[_Union[MemoryMentions, _Mapping]] = ...) -> None: ...

class TimeSpan(_message.Message):
    __slots__ = ("after", "before")
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    after: _timestamp_pb2.Timestamp
    before: _timestamp_pb2.Timestamp
    def __init__(self, after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MemoryMentions(_message.Message):
    __slots__ = ("speaker", "people", "times", "dated", "asks")
    SPEAKER_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_FIELD_NUMBER: _ClassVar[int]
    TIMES_FIELD_NUMBER: _ClassVar[int]
    DATED_FIELD_NUMBER: _ClassVar[int]
    ASKS_FIELD_NUMBER: _ClassVar[int]
    speaker: str
    people: _containers.RepeatedScalarFieldContainer[str]
    times: _containers.RepeatedCompositeFieldContainer[TimeSpan]
    dated: bool
    asks: bool
    def __init__(self, speaker: _Optional[str] = ..., people: _Optional[_Iterable[str]] = ..., times: _Optional[_Iterable[_Union[TimeSpan, _Mapping]]] = ..., dated: _Optional[bool] = ..., asks: _Optional[bool] = ...) -> None: ...

class MemoryFlag(_message.Message):
    __slots__ = ("id", "kind", "reason", "flagged_by", "flagged_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FLAGGED_BY_FIELD_NUMBER: _ClassVar[int]
    FLAGGED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: FlagKind
    reason: str
    flagged_by: str
    flagged_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[_Union[FlagKind, str]] = ..., reason: _Optional[str] = ..., flagged_by: _Optional[str] = ..., flagged_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MemoryCuration(_message.Message):
    __slots__ = ("flags", "confirmations", "last_confirmed_at", "corrections", "promoted_at", "author_kind")
    FLAGS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_CONFIRMED_AT_FIELD_NUMBER: _ClassVar[int]
    CORRECTIONS_FIELD_NUMBER: _ClassVar[int]
    PROMOTED_AT_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_KIND_FIELD_NUMBER: _ClassVar[int]
    flags: _containers.RepeatedCompositeFieldContainer[MemoryFlag]
    confirmations: int
    last_confirmed_at: _timestamp_pb2.Timestamp
    corrections: int
    promoted_at: _timestamp_pb2.Timestamp
    author_kind: AuthorKind
    def __init__(self, flags: _Optional[_Iterable[_Union[MemoryFlag, _Mapping]]] = ..., confirmations: _Optional[int] = ..., last_confirmed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., corrections: _Optional[int] = ..., promoted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., author_kind: _Optional[_Union[AuthorKind, str]] = ...) -> None: ...

class TagList(_message.Message):
    __slots__ = ("tags",)
    TAGS_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tags: _Optional[_Iterable[str]] = ...) -> None: ...

class MemoryChanges(_message.Message):
    __slots__ = ("body", "importance", "tags", "visibility", "expires_at", "clear_expiry", "embedding", "add_flag", "flag_reason", "clear_flag_ids", "clear_all_flags", "confirm", "promote", "occurred_at", "clear_occurred_at")
    BODY_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    CLEAR_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    ADD_FLAG_FIELD_NUMBER: _ClassVar[int]
    FLAG_REASON_FIELD_NUMBER: _ClassVar[int]
    CLEAR_FLAG_IDS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_ALL_FLAGS_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    CLEAR_OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    body: str
    importance: float
    tags: TagList
    visibility: Visibility
    expires_at: _timestamp_pb2.Timestamp
    clear_expiry: bool
    embedding: Embedding
    add_flag: FlagKind
    flag_reason: str
    clear_flag_ids: _containers.RepeatedScalarFieldContainer[str]
    clear_all_flags: bool
    confirm: bool
    promote: bool
    occurred_at: _timestamp_pb2.Timestamp
    clear_occurred_at: bool
    def __init__(self, body: _Optional[str] = ..., importance: _Optional[float] = ..., tags: _Optional[_Union[TagList, _Mapping]] = ..., visibility: _Optional[_Union[Visibility, str]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., clear_expiry: _Optional[bool] = ..., embedding: _Optional[_Union[Embedding, _Mapping]] = ..., add_flag: _Optional[_Union[FlagKind, str]] = ..., flag_reason: _Optional[str] = ..., clear_flag_ids: _Optional[_Iterable[str]] = ..., clear_all_flags: _Optional[bool] = ..., confirm: _Optional[bool] = ..., promote: _Optional[bool] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., clear_occurred_at: _Optional[bool] = ...) -> None: ...

class Embedding(_message.Message):
    __slots__ = ("model", "values")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    model: str
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, model: _Optional[str] = ..., values: _Optional[_Iterable[float]] = ...) -> None: ...

class Neighbour(_message.Message):
    __slots__ = ("memory_id", "similarity")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    similarity: float
    def __init__(self, memory_id: _Optional[str] = ..., similarity: _Optional[float] = ...) -> None: ...

class MemoryRecord(_message.Message):
    __slots__ = ("memory", "last_command_id", "edges")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    LAST_COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    last_command_id: str
    edges: _containers.RepeatedCompositeFieldContainer[_edges_pb2.Edge]
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., last_command_id: _Optional[str] = ..., edges: _Optional[_Iterable[_Union[_edges_pb2.Edge, _Mapping]]] = ...) -> None: ...
