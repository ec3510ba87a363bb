from dataclasses import replace
from datetime import UTC, datetime

from memhive_contracts.mapping import memory_from_pb, memory_to_pb
from memhive_domain.mentions import Mentions, mentions_of
from memhive_domain.time_range import TimeRange

from tests.unit.domain.memory_factory import a_memory

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_a_records_mentions_survive_the_wire() -> None:
    body = "Caroline: I went with Jon yesterday, and since 2022 too. Coming?"
    memory = a_memory("m1", at=AT, body=body, mentions=mentions_of(body, AT))

    back = memory_from_pb(memory_to_pb(memory))

    assert back == memory
    assert back.mentions is not None and back.mentions.people == ("caroline", "jon")


def test_open_ended_spans_and_empty_mentions_survive_the_wire() -> None:
    open_ended = Mentions(times=(TimeRange(AT, None), TimeRange(None, AT)))
    for mentions in (open_ended, Mentions()):
        memory = a_memory("m1", at=AT, mentions=mentions)
        assert memory_from_pb(memory_to_pb(memory)).mentions == mentions


def test_a_record_written_before_mentions_reads_them_from_its_body() -> None:
    message = memory_to_pb(a_memory("m1", at=AT, body="Ann: it broke yesterday."))
    assert not message.HasField("mentions")

    back = memory_from_pb(message)

    assert back.mentions is None
    assert back.names == mentions_of("Ann: it broke yesterday.", AT)
    assert replace(back, mentions=back.names).names.speaker == "Ann"
