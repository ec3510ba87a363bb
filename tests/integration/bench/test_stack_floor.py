"""`bench.stack_floor` measures each part of a save for real: every request answered, every
event delivered to each consumer, every memory in both lanes. A part that quietly did less
would report a floor lower than the truth."""

from __future__ import annotations

from bench import stack_floor

SAVES = 40
# Another process's CPU comes from /proc in clock ticks (10 ms): at ~0.2 ms a save, 40 saves
# can read as no CPU at all. Enough saves for several ticks where a part reads it there.
TICKED_SAVES = 500


def test_the_http_part_answers_every_save() -> None:
    http = stack_floor.http_floor(TICKED_SAVES)  # raises on an answer other than 201
    assert http["cpu_ms"] > 0
    assert http["answered"] == TICKED_SAVES


def test_the_bus_part_delivers_every_indexed_event_to_both_consumers() -> None:
    bus = stack_floor.bus_floor(TICKED_SAVES)
    assert bus["delivered"] == TICKED_SAVES
    assert bus["client_ms"] > 0 and bus["server_ms"] > 0


def test_the_lanes_part_writes_every_memory_to_both_lanes() -> None:
    lanes = stack_floor.lanes_floor(SAVES)
    assert lanes["vectors"] == lanes["documents"] == stack_floor.STORE + SAVES
    assert lanes["cpu_ms"] > 0
