from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ReindexMemories(_message.Message):
    __slots__ = ("job_id", "workspace_ids", "embedding_model")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_IDS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    workspace_ids: _containers.RepeatedScalarFieldContainer[str]
    embedding_model: str
    def __init__(self, job_id: _Optional[str] = ..., workspace_ids: _Optional[_Iterable[str]] = ..., embedding_model: _Optional[str] = ...) -> None: ...

class ReindexProgress(_message.Message):
    __slots__ = ("job_id", "state", "done", "total", "generation", "embedding_model", "reason")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    state: str
    done: int
    total: int
    generation: int
    embedding_model: str
    reason: str
    def __init__(self, job_id: _Optional[str] = ..., state: _Optional[str] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., generation: _Optional[int] = ..., embedding_model: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
