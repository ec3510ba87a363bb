"""ActivityLog over two streams: memory events from the log (`MEMHIVE`: saved, forgotten,
linked) and recalls from `MEMHIVE_ACTIVITY`, merged newest first by the time each stream
stored them.

Each stream is read back by `NewestFirst` with a subject filter naming the workspace and
the kinds asked for, so the server selects them. A read spans at most MAX_SPAN sequences of
each stream; when one stream pauses there, the merge stops too (its next event might be
newer than the other stream's), so pages stay newest first across cursors.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from memhive_contracts import subjects
from memhive_contracts.activity_mapping import SUBJECTS, activity_from_message
from memhive_contracts.codec import UndecodableMessage
from memhive_contracts.streams import ACTIVITY_STREAM, LOG_STREAM
from memhive_domain.activity import ActivityEvent, ActivityKind, ActivityPosition, with_resume
from nats.js import JetStreamContext

from memhive_adapters.nats.newest_first import NewestFirst, StoredMessage

MAX_SPAN = 20_000  # stream sequences per stream per read


class JetStreamActivityLog:
    def __init__(self, js: JetStreamContext, max_span: int = MAX_SPAN) -> None:
        self._js, self._max_span = js, max_span

    def newest_first(
        self, workspace_id: str, kinds: frozenset[ActivityKind], start: ActivityPosition
    ) -> MergedReading:
        log = {SUBJECTS[k] for k in kinds} - {subjects.MEMORIES_RECALLED}
        return MergedReading(
            self._reader(LOG_STREAM, sorted(log), workspace_id, start.log),
            self._reader(ACTIVITY_STREAM, _recalls(kinds), workspace_id, start.recalls),
        )

    def _reader(
        self, stream: str, roots: list[str], workspace_id: str, before: int | None
    ) -> NewestFirst | None:
        if not roots or before == 0:  # not asked for, or nothing older left
            return None
        chosen = [subjects.for_workspace(r, workspace_id) for r in roots]
        return NewestFirst(self._js, stream, chosen, before, max_span=self._max_span)


def _recalls(kinds: frozenset[ActivityKind]) -> list[str]:
    return [subjects.MEMORIES_RECALLED] if ActivityKind.RECALLED in kinds else []


class MergedReading:
    """ActivityReading: the two streams merged, newest first."""

    def __init__(self, log: NewestFirst | None, recalls: NewestFirst | None) -> None:
        self._log, self._recalls = log, recalls
        self._paused = False

    async def __aiter__(self) -> AsyncIterator[ActivityEvent]:
        while (message := await self._next()) is not None:
            event = _decoded(message)
            if event is not None:
                yield with_resume(event, self._position())

    @property
    def resume(self) -> ActivityPosition | None:
        done = [r is None or r.exhausted for r in (self._log, self._recalls)]
        return None if all(done) and not self._paused else self._position()

    async def _next(self) -> StoredMessage | None:
        heads = []
        for reader in (r for r in (self._log, self._recalls) if r is not None):
            head = await reader.peek()
            if head is None and not reader.exhausted:
                self._paused = True  # at its span bound: what it holds may be newer
                return None
            if head is not None:
                heads.append((head.time, reader is self._log, reader))
        if not heads:
            return None
        return max(heads, key=lambda h: (h[0], h[1]))[2].pop()

    def _position(self) -> ActivityPosition:
        return ActivityPosition(_bound(self._log), _bound(self._recalls))


def _bound(reader: NewestFirst | None) -> int | None:
    """0 (nothing older) for a stream not read or read to its start; None (from the newest)
    for one the read never reached."""
    if reader is None or reader.exhausted:
        return 0
    return reader.resume_before


def _decoded(message: StoredMessage) -> ActivityEvent | None:
    """None for anything this version cannot read (skipped, as the audit log does)."""
    with contextlib.suppress(UndecodableMessage, ValueError, KeyError):
        return activity_from_message(message.subject, message.data, message.time)
    return None
