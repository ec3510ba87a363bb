from __future__ import annotations

from typing import Protocol

from google.protobuf.message import Message

from memhive_ports.faults import BusUnavailable, InsufficientStorage

__all__ = ["BusUnavailable", "EventPublisher", "InsufficientStorage"]


class EventPublisher(Protocol):
    """Puts commands and events on the bus."""

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        """Returns once the stream has stored the message. The same msg_id within the
        stream's duplicate window is stored once, so a retried publish is safe. Raises
        BusUnavailable when the bus cannot take it for now, InsufficientStorage when the
        store is (nearly) out of space."""
        ...
