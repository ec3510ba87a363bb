"""NewestFirst: a stream's messages on some subjects, newest first, window by window, bounded."""

from __future__ import annotations

import uuid

import pytest
from memhive_adapters.nats.newest_first import NewestFirst
from nats.js import JetStreamContext
from nats.js.api import StorageType, StreamConfig


@pytest.fixture
async def stream(js: JetStreamContext):
    """A throwaway stream of 700 messages: `a` and `b` interleaved with other subjects' noise."""
    name = f"NEWEST_{uuid.uuid4().hex[:8].upper()}"
    prefix = f"t.{name.lower()}"
    await js.add_stream(
        StreamConfig(name=name, subjects=[f"{prefix}.>"], storage=StorageType.MEMORY)
    )
    for n in range(700):
        subject = ("a", "b", "noise", "noise")[n % 4]
        await js.publish(f"{prefix}.{subject}", str(n).encode())
    yield name, prefix
    await js.delete_stream(name)


async def drain(reader: NewestFirst) -> list[int]:
    found = []
    while await reader.peek() is not None:
        found.append(int(reader.pop().data))
    return found


async def test_reads_one_subject_back_to_the_start(js: JetStreamContext, stream) -> None:
    name, prefix = stream
    reader = NewestFirst(js, name, [f"{prefix}.a"], max_span=10_000)

    found = await drain(reader)

    assert found == list(range(696, -1, -4))  # every `a`, newest first, across windows
    assert reader.exhausted and reader.resume_before is None
    assert not [c for c in await js.consumers_info(name)]  # no reader left behind


async def test_several_subjects_in_one_read(js: JetStreamContext, stream) -> None:
    name, prefix = stream
    found = await drain(NewestFirst(js, name, [f"{prefix}.a", f"{prefix}.b"], max_span=10_000))

    assert found == sorted((n for n in range(700) if n % 4 in (0, 1)), reverse=True)


async def test_pauses_at_the_span_and_resumes_without_gap_or_repeat(
    js: JetStreamContext, stream
) -> None:
    name, prefix = stream
    pages, before = [], None
    while True:
        reader = NewestFirst(js, name, [f"{prefix}.b"], before, max_span=300, first_window=64)
        pages.append(await drain(reader))
        assert reader.spanned <= 300  # the span bound holds
        if (before := reader.resume_before) is None:
            break
        assert not reader.exhausted

    assert len(pages) > 1
    assert [n for page in pages for n in page] == list(range(697, 0, -4))


async def test_stopping_early_resumes_at_the_next_unread(js: JetStreamContext, stream) -> None:
    name, prefix = stream
    first = NewestFirst(js, name, [f"{prefix}.a"], max_span=10_000)
    taken = [int(first.pop().data) for _ in range(3) if await first.peek()]
    rest = await drain(NewestFirst(js, name, [f"{prefix}.a"], first.resume_before, max_span=10_000))

    assert taken == [696, 692, 688]
    assert rest[0] == 684 and len(taken) + len(rest) == 175
