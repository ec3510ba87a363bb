"""An import's run: items decided and written several at once, outcomes in file order.

The infrastructure is a hand-written fake whose searches and saves take random times, so
items finish out of order; what the run reports must not depend on it."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest
from memhive_domain.exchange.formats import ImportFormat
from memhive_domain.exchange.items import ImportFile, ImportItem
from memhive_domain.ids import uuid7
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal, Role
from memhive_query.use_cases.imports import IN_FLIGHT, ImportRequest, ImportRun

NOW = datetime(2026, 12, 6, tzinfo=UTC)
ADMIN = Principal("ws", "root", Role.ADMIN)


class SlowInfrastructure:
    """What ImportRun uses of ImportMemories, each step taking a random few milliseconds."""

    def __init__(
        self, seed: int, fail_at: str | None = None, hang: frozenset[str] = frozenset()
    ) -> None:
        """fail_at: the body whose save fails; hang: bodies whose saves never end by
        themselves."""
        self._random, self._fail_at, self._hang = random.Random(seed), fail_at, hang
        self.saving = self.most_at_once = self.cancelled = 0
        self.saved: list[str] = []
        self.running = 0

    async def _pause(self) -> None:
        await asyncio.sleep(self._random.uniform(0, 0.004))

    async def memory_of(self, principal: Principal, item: ImportItem) -> Memory:
        memory_id = uuid7(int(NOW.timestamp() * 1000))
        return create_memory(item.draft, memory_id=memory_id, principal=principal, now=NOW)

    async def vectors(self, memories) -> list[list[float]]:
        await self._pause()
        return [[0.0] * 4 for _ in memories]

    async def similar(self, principal, memory, vector) -> list:
        await self._pause()
        return []

    async def save(self, principal, memory: Memory, vector, stale) -> Memory:
        self.running += 1
        self.saving += 1
        self.most_at_once = max(self.most_at_once, self.saving)
        try:
            if memory.body == self._fail_at:
                raise ConnectionError("the bus went away")
            await self._pause()
            if memory.body in self._hang:
                await asyncio.Event().wait()
            self.saved.append(memory.body)
            return memory
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.saving -= 1
            self.running -= 1

    async def keep(self, principal, memory, item) -> None:
        await self._pause()

    async def earlier(self, principal, memory, item) -> None:
        return None


def a_file(bodies: list[str]) -> ImportFile:
    return ImportFile(
        tuple(
            ImportItem(line=n, draft=MemoryDraft(kind="fact", body=body))
            for n, body in enumerate(bodies, 1)
        )
    )


def run_of(infra: SlowInfrastructure, parsed: ImportFile) -> ImportRun:
    request = ImportRequest(form=ImportFormat.MARKDOWN, text="", path="notes.md")
    return ImportRun(infra, ADMIN, request, parsed, held=set())


@pytest.mark.parametrize("seed", range(5))
async def test_outcomes_come_in_file_order_while_items_are_written_several_at_once(
    seed: int,
) -> None:
    bodies = [f"decision number {n} about the cache" for n in range(70)]
    bodies[40] = bodies[3]  # the same text again: a duplicate of line 4
    infra = SlowInfrastructure(seed)
    outcomes = [outcome async for outcome in run_of(infra, a_file(bodies))]
    assert [o.line for o in outcomes] == list(range(1, 71))
    assert outcomes[40].status == "skipped"
    assert outcomes[40].reason == "duplicate: the same text as line 4"
    assert [o.status for o in outcomes].count("created") == 69
    assert sorted(infra.saved) == sorted(set(bodies))
    assert 1 < infra.most_at_once <= IN_FLIGHT


async def test_a_failure_stops_the_run_and_cancels_what_is_in_flight() -> None:
    bodies = [f"decision number {n} about the cache" for n in range(40)]
    infra = SlowInfrastructure(seed=1, fail_at=bodies[5], hang=frozenset(bodies[6:]))
    reported = []

    async def run() -> None:
        async for outcome in run_of(infra, a_file(bodies)):
            reported.append(outcome.line)

    with pytest.raises(ConnectionError):
        await asyncio.wait_for(run(), timeout=10)
    assert reported == [1, 2, 3, 4, 5]
    assert infra.running == 0 and infra.cancelled > 0
    await asyncio.sleep(0.02)  # nothing cancelled keeps going afterwards
    assert infra.running == 0 and len(infra.saved) < len(bodies)


async def test_a_caller_gone_mid_run_cancels_what_is_in_flight() -> None:
    infra = SlowInfrastructure(seed=2)
    run = run_of(infra, a_file([f"decision number {n} about the cache" for n in range(60)]))
    outcomes = run.__aiter__()
    assert (await anext(outcomes)).line == 1
    await outcomes.aclose()
    assert infra.running == 0
    saved = len(infra.saved)
    await asyncio.sleep(0.02)
    assert len(infra.saved) == saved < 60
