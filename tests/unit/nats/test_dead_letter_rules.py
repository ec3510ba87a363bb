from __future__ import annotations

from datetime import UTC, datetime

from memhive_adapters.nats.consumer import backoff_delay, poison_reason
from memhive_adapters.nats.dead_letters import (
    MAX_REASON_CHARS,
    dead_letter_from_raw,
    dead_letter_headers,
    dead_letter_msg_id,
)
from memhive_adapters.nats.kv_token_directory import token_digest
from memhive_contracts import streams
from memhive_contracts.codec import UndecodableMessage
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_ports.poison import Poison
from nats.js.api import RawStreamMsg


def test_poison_undecodable_and_invalid_input_are_poison_with_their_reason() -> None:
    assert poison_reason(Poison("no such memory")) == "no such memory"
    assert poison_reason(UndecodableMessage("garbage")) == "UndecodableMessage: garbage"
    invalid = InvalidInput([FieldProblem("body", "is empty")])
    assert poison_reason(invalid) == "InvalidInput: body: is empty"


def test_other_errors_are_worth_a_retry() -> None:
    assert poison_reason(RuntimeError("store unavailable")) is None
    assert poison_reason(TimeoutError()) is None


def test_backoff_follows_the_delivery_count_and_repeats_the_last_step() -> None:
    steps = (0.2, 1, 5)
    assert [backoff_delay(steps, n) for n in (1, 2, 3, 4, 9)] == [0.2, 1, 5, 5, 5]
    assert backoff_delay((), 3) == 0.0


def test_dead_letter_ids_differ_per_consumer_and_repeat_per_message() -> None:
    assert dead_letter_msg_id("LOG", "ingest", 7) == dead_letter_msg_id("LOG", "ingest", 7)
    assert dead_letter_msg_id("LOG", "ingest", 7) != dead_letter_msg_id("LOG", "embed", 7)
    assert dead_letter_msg_id("LOG", "ingest", 7) != dead_letter_msg_id("LOG", "ingest", 8)


def test_headers_carry_the_reason_on_one_bounded_line_and_drop_nats_headers() -> None:
    headers = dead_letter_headers(
        {"Nats-Msg-Id": "original", "Trace-Id": "t-1"},
        subject="memhive.cmd.memory.save.ws",
        consumer="ingest",
        reason="Traceback:\n  line 1\r\n" + "x" * 5000,
        deliveries=5,
        msg_id="dlq:1",
    )

    assert headers[streams.DLQ_REASON_HEADER].startswith("Traceback: line 1 xxx")
    assert len(headers[streams.DLQ_REASON_HEADER]) == MAX_REASON_CHARS
    assert headers[streams.MSG_ID_HEADER] == "dlq:1"
    assert headers["Trace-Id"] == "t-1"
    assert headers[streams.DLQ_DELIVERIES_HEADER] == "5"


def test_a_stored_dead_letter_reads_back_with_its_original_headers() -> None:
    headers = dead_letter_headers(
        {"Trace-Id": "t-1"}, subject="s.ws", consumer="embed", reason="bad", deliveries=2,
        msg_id="dlq:2",
    )  # fmt: skip
    moment = datetime(2025, 5, 1, tzinfo=UTC)
    raw = RawStreamMsg(subject="memhive.dlq.embed", seq=42, data=b"p", headers=headers, time=moment)

    letter = dead_letter_from_raw(raw)

    assert (letter.sequence, letter.consumer, letter.subject) == (42, "embed", "s.ws")
    assert (letter.reason, letter.deliveries, letter.payload) == ("bad", 2, b"p")
    assert letter.headers == {"Trace-Id": "t-1"}
    assert letter.time == moment


def test_token_digest_is_sha256_hex() -> None:
    digest = token_digest("secret")
    assert digest == "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
    assert "secret" not in digest
