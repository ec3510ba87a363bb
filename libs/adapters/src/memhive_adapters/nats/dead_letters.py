"""The dead-letter stream: how a poison message is parked, listed and replayed."""

from __future__ import annotations

import builtins
import logging
import uuid
from collections.abc import Mapping

from memhive_contracts import subjects
from memhive_contracts.streams import (
    DEAD_LETTER_STREAM,
    DLQ_CONSUMER_HEADER,
    DLQ_DELIVERIES_HEADER,
    DLQ_REASON_HEADER,
    DLQ_SUBJECT_HEADER,
    MSG_ID_HEADER,
)
from memhive_ports.dead_letters import DeadLetter
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg
from nats.js.errors import NotFoundError

log = logging.getLogger(__name__)

MAX_REASON_CHARS = 1000
_DLQ_HEADERS = (DLQ_REASON_HEADER, DLQ_SUBJECT_HEADER, DLQ_CONSUMER_HEADER, DLQ_DELIVERIES_HEADER)


def dead_letter_msg_id(stream: str, consumer: str, stream_sequence: int) -> str:
    """One id per original message and consumer, so dead-lettering it twice stores it once."""
    return f"dlq:{stream}:{consumer}:{stream_sequence}"


def one_line(reason: str) -> str:
    # Header values cannot hold line breaks; tracebacks can be long.
    return " ".join(reason.split())[:MAX_REASON_CHARS]


def dead_letter_headers(
    original_headers: Mapping[str, str] | None,
    *,
    subject: str,
    consumer: str,
    reason: str,
    deliveries: int,
    msg_id: str,
) -> dict[str, str]:
    carried = {k: v for k, v in (original_headers or {}).items() if not k.startswith("Nats-")}
    return carried | {
        DLQ_REASON_HEADER: one_line(reason) or "unknown",
        DLQ_SUBJECT_HEADER: subject,
        DLQ_CONSUMER_HEADER: consumer,
        DLQ_DELIVERIES_HEADER: str(deliveries),
        MSG_ID_HEADER: msg_id,
    }


async def send_to_dead_letters(js: JetStreamContext, msg: Msg, consumer: str, reason: str) -> None:
    """Stores the message with its reason in the dead-letter stream; the caller then terms it."""
    meta = msg.metadata
    headers = dead_letter_headers(
        msg.headers,
        subject=msg.subject,
        consumer=consumer,
        reason=reason,
        deliveries=meta.num_delivered,
        msg_id=dead_letter_msg_id(meta.stream, consumer, meta.sequence.stream),
    )
    await js.publish(subjects.dead_letter(consumer), msg.data or b"", headers=headers)
    log.error(
        "dead-lettered %s seq %s for %s after %s deliveries: %s",
        msg.subject, meta.sequence.stream, consumer, meta.num_delivered, headers[DLQ_REASON_HEADER],
    )  # fmt: skip


def dead_letter_from_raw(raw: RawStreamMsg) -> DeadLetter:
    headers = dict(raw.headers or {})
    return DeadLetter(
        sequence=raw.seq or 0,
        consumer=headers.get(DLQ_CONSUMER_HEADER, ""),
        subject=headers.get(DLQ_SUBJECT_HEADER, ""),
        reason=headers.get(DLQ_REASON_HEADER, ""),
        deliveries=int(headers.get(DLQ_DELIVERIES_HEADER, "0")),
        payload=raw.data or b"",
        time=raw.time,
        headers=_original_headers(headers),
    )


def _original_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in _DLQ_HEADERS and not k.startswith("Nats-")}


class DeadLetters:
    """What operators see of the dead-letter stream: list it, replay one message."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def list(
        self, consumer: str | None = None, limit: int = 100
    ) -> builtins.list[DeadLetter]:
        """Oldest first; only those of `consumer` when given."""
        wanted = subjects.dead_letter(consumer) if consumer else subjects.dead_letter(">")
        letters: builtins.list[DeadLetter] = []
        sequence = 1
        while len(letters) < limit:
            raw = await self._next(sequence, wanted)
            if raw is None:
                break
            letters.append(dead_letter_from_raw(raw))
            sequence = (raw.seq or sequence) + 1
        return letters

    async def _next(self, sequence: int, subject: str) -> RawStreamMsg | None:
        try:
            return await self._js.get_msg(
                DEAD_LETTER_STREAM, seq=sequence, subject=subject, next=True
            )
        except NotFoundError:
            return None

    async def replay(self, sequence: int) -> None:
        """Republish to the original subject under a fresh msg id, then drop the dead letter.

        Every consumer of that subject sees the replayed message, not only the one that
        gave up on it: handlers are idempotent, so the others skip it.
        """
        letter = await self._get(sequence)
        headers = dict(letter.headers) | {MSG_ID_HEADER: f"replay:{uuid.uuid4()}"}
        await self._js.publish(letter.subject, letter.payload, headers=headers)
        await self._js.delete_msg(DEAD_LETTER_STREAM, sequence)
        log.info("replayed dead letter %s to %s", sequence, letter.subject)

    async def _get(self, sequence: int) -> DeadLetter:
        try:
            letter = dead_letter_from_raw(await self._js.get_msg(DEAD_LETTER_STREAM, seq=sequence))
        except NotFoundError:
            raise LookupError(f"no dead letter at sequence {sequence}") from None
        if not letter.subject:
            raise LookupError(f"message {sequence} in {DEAD_LETTER_STREAM} is not a dead letter")
        return letter
