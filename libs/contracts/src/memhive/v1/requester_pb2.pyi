from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Requester(_message.Message):
    __slots__ = ("role", "home")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    role: str
    home: str
    def __init__(self, role: _Optional[str] = ..., home: _Optional[str] = ...) -> None: ...
