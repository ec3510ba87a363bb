"""The one protobuf codec of the bus: bytes in, typed message out, with a clear error."""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import DecodeError, Message

M = TypeVar("M", bound=Message)


class UndecodableMessage(ValueError):
    """The payload is not a valid message of the expected type: a poison message."""


def encode(message: Message) -> bytes:
    return message.SerializeToString(deterministic=True)


def decode(payload: bytes, message_type: type[M]) -> M:
    message = message_type()
    try:
        message.ParseFromString(payload)
    except DecodeError as exc:
        raise UndecodableMessage(f"not a valid {message_type.DESCRIPTOR.full_name}: {exc}") from exc
    return message
