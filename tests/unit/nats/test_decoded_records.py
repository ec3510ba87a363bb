from __future__ import annotations

import uuid
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from memhive_adapters.nats.decoded_records import DecodedRecords, stored_memory
from memhive_adapters.nats.kv_latest import Latest
from memhive_adapters.nats.kv_memory_store import _record
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_ports import StoredMemory

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


def a_record(body: str = "the build uses uv", edges: int = 1) -> bytes:
    memory = a_memory(body)
    linked = tuple(an_edge(memory) for _ in range(edges))
    return _record(memory, "cmd-1", linked)


def a_memory(body: str) -> Memory:
    draft = MemoryDraft(kind="fact", body=body)
    principal = Principal(workspace_id="ws", user_id="ada")
    return create_memory(draft, memory_id=str(uuid.uuid4()), principal=principal, now=NOW)


def an_edge(memory: Memory) -> Edge:
    return Edge(
        memory.id, str(uuid.uuid4()), EdgeKind.RELATED_TO, 0.8, "classifier",
        CreatorKind.CLASSIFIER, "similar", NOW,
    )  # fmt: skip


class CountingDecode:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, value: bytes, revision: int) -> StoredMemory:
        self.calls += 1
        return stored_memory(value, revision)


def test_a_record_read_again_at_its_revision_is_not_decoded_again() -> None:
    decode = CountingDecode()
    records, value = DecodedRecords(10, decode), a_record()

    first = records.stored("ws.a", Latest(value, 7))
    again = records.stored("ws.a", Latest(value, 7))

    assert again is first and decode.calls == 1
    assert first == stored_memory(value, 7)


def test_a_new_revision_or_other_bytes_is_decoded() -> None:
    decode = CountingDecode()
    records, value, other = DecodedRecords(10, decode), a_record("one"), a_record("two")
    records.stored("ws.a", Latest(value, 7))

    newer = records.stored("ws.a", Latest(value, 8))
    recreated = records.stored("ws.a", Latest(other, 8))  # a bucket declared again

    assert newer.revision == 8 and recreated == stored_memory(other, 8)
    assert decode.calls == 3 and len(records) == 1


def test_the_least_recently_read_record_goes_first() -> None:
    decode = CountingDecode()
    records, value = DecodedRecords(2, decode), a_record()
    for key in ("ws.a", "ws.b", "ws.a", "ws.c"):  # b is the least recently read
        records.stored(key, Latest(value, 1))

    records.stored("ws.a", Latest(value, 1))
    records.stored("ws.b", Latest(value, 1))

    assert decode.calls == 4 and len(records) == 2


def test_none_kept_decodes_every_read() -> None:
    decode = CountingDecode()
    records, value = DecodedRecords(0, decode), a_record()

    records.stored("ws.a", Latest(value, 1))
    records.stored("ws.a", Latest(value, 1))

    assert decode.calls == 2 and len(records) == 0


_READS = st.lists(
    st.tuples(st.sampled_from(["ws.a", "ws.b", "ws.c"]), st.integers(1, 3), st.integers(0, 2)),
    max_size=30,
)
_BODIES = [a_record(body, edges) for body, edges in (("one", 0), ("two", 1), ("three", 3))]


@given(reads=_READS, kept=st.integers(0, 3))
def test_a_read_is_always_the_decode_of_what_was_read(
    reads: list[tuple[str, int, int]], kept: int
) -> None:
    records = DecodedRecords(kept)
    for key, revision, body in reads:
        value = _BODIES[body]
        assert records.stored(key, Latest(value, revision)) == stored_memory(value, revision)
        assert len(records) <= kept
