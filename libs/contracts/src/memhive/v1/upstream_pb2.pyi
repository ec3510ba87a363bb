import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOB_OUTCOME_UNSPECIFIED: _ClassVar[JobOutcome]
    JOB_OUTCOME_SUCCEEDED: _ClassVar[JobOutcome]
    JOB_OUTCOME_FAILED: _ClassVar[JobOutcome]
    JOB_OUTCOME_CANCELLED: _ClassVar[JobOutcome]
JOB_OUTCOME_UNSPECIFIED: JobOutcome
JOB_OUTCOME_SUCCEEDED: JobOutcome
JOB_OUTCOME_FAILED: JobOutcome
JOB_OUTCOME_CANCELLED: JobOutcome

class IssueCreated(_message.Message):
    __slots__ = ("event_id", "workspace_id", "issue_id", "title", "description", "status", "labels", "product_id", "author", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    ISSUE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    issue_id: str
    title: str
    description: str
    status: str
    labels: _containers.RepeatedScalarFieldContainer[str]
    product_id: str
    author: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., issue_id: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., status: _Optional[str] = ..., labels: _Optional[_Iterable[str]] = ..., product_id: _Optional[str] = ..., author: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class IssueUpdated(_message.Message):
    __slots__ = ("event_id", "workspace_id", "issue_id", "title", "description", "status", "labels", "product_id", "author", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    ISSUE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    issue_id: str
    title: str
    description: str
    status: str
    labels: _containers.RepeatedScalarFieldContainer[str]
    product_id: str
    author: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., issue_id: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., status: _Optional[str] = ..., labels: _Optional[_Iterable[str]] = ..., product_id: _Optional[str] = ..., author: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CommentCreated(_message.Message):
    __slots__ = ("event_id", "workspace_id", "comment_id", "issue_id", "body", "author", "product_id", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ISSUE_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    comment_id: str
    issue_id: str
    body: str
    author: str
    product_id: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., comment_id: _Optional[str] = ..., issue_id: _Optional[str] = ..., body: _Optional[str] = ..., author: _Optional[str] = ..., product_id: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ResolvedError(_message.Message):
    __slots__ = ("error", "resolution")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    error: str
    resolution: str
    def __init__(self, error: _Optional[str] = ..., resolution: _Optional[str] = ...) -> None: ...

class SessionContext(_message.Message):
    __slots__ = ("decisions", "resolved_errors", "files_modified")
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_ERRORS_FIELD_NUMBER: _ClassVar[int]
    FILES_MODIFIED_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedScalarFieldContainer[str]
    resolved_errors: _containers.RepeatedCompositeFieldContainer[ResolvedError]
    files_modified: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, decisions: _Optional[_Iterable[str]] = ..., resolved_errors: _Optional[_Iterable[_Union[ResolvedError, _Mapping]]] = ..., files_modified: _Optional[_Iterable[str]] = ...) -> None: ...

class JobCompleted(_message.Message):
    __slots__ = ("event_id", "workspace_id", "job_id", "outcome", "stdout_excerpt", "session", "product_id", "author", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STDOUT_EXCERPT_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    job_id: str
    outcome: JobOutcome
    stdout_excerpt: str
    session: SessionContext
    product_id: str
    author: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., job_id: _Optional[str] = ..., outcome: _Optional[_Union[JobOutcome, str]] = ..., stdout_excerpt: _Optional[str] = ..., session: _Optional[_Union[SessionContext, _Mapping]] = ..., product_id: _Optional[str] = ..., author: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class NoteAdded(_message.Message):
    __slots__ = ("event_id", "workspace_id", "note_id", "title", "body", "tags", "product_id", "author", "occurred_at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    NOTE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    note_id: str
    title: str
    body: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    product_id: str
    author: str
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., note_id: _Optional[str] = ..., title: _Optional[str] = ..., body: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., product_id: _Optional[str] = ..., author: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class KeyFile(_message.Message):
    __slots__ = ("path", "purpose")
    PATH_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    path: str
    purpose: str
    def __init__(self, path: _Optional[str] = ..., purpose: _Optional[str] = ...) -> None: ...

class Procedure(_message.Message):
    __slots__ = ("title", "steps")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    title: str
    steps: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, title: _Optional[str] = ..., steps: _Optional[_Iterable[str]] = ...) -> None: ...

class KnowledgeSnapshot(_message.Message):
    __slots__ = ("event_id", "workspace_id", "snapshot_id", "product_id", "architecture_notes", "key_files", "conventions", "procedures", "occurred_at", "author")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    ARCHITECTURE_NOTES_FIELD_NUMBER: _ClassVar[int]
    KEY_FILES_FIELD_NUMBER: _ClassVar[int]
    CONVENTIONS_FIELD_NUMBER: _ClassVar[int]
    PROCEDURES_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    workspace_id: str
    snapshot_id: str
    product_id: str
    architecture_notes: _containers.RepeatedScalarFieldContainer[str]
    key_files: _containers.RepeatedCompositeFieldContainer[KeyFile]
    conventions: _containers.RepeatedScalarFieldContainer[str]
    procedures: _containers.RepeatedCompositeFieldContainer[Procedure]
    occurred_at: _timestamp_pb2.Timestamp
    author: str
    def __init__(self, event_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., snapshot_id: _Optional[str] = ..., product_id: _Optional[str] = ..., architecture_notes: _Optional[_Iterable[str]] = ..., key_files: _Optional[_Iterable[_Union[KeyFile, _Mapping]]] = ..., conventions: _Optional[_Iterable[str]] = ..., procedures: _Optional[_Iterable[_Union[Procedure, _Mapping]]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., author: _Optional[str] = ...) -> None: ...
