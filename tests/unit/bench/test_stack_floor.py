"""The floor's report: each part, their sum, and the save it allows in passes."""

from __future__ import annotations

from bench import stack_floor
from bench.cost_accounting import render

FLOOR = {"http_ms": 0.2, "bus_client_ms": 0.4, "bus_server_ms": 0.1, "lanes_ms": 1.3}


def test_the_floor_is_the_sum_of_its_parts_and_counted_in_passes() -> None:
    text = stack_floor.render(FLOOR, one_pass=2.0)
    assert "| HTTP: the request and its answer (the server's process) | 0.20 |" in text
    assert "| **the stack's floor** | **2.00** |" in text
    assert "4.00 ms of CPU, 2.00 passes" in text


def test_the_cost_report_says_what_memhive_adds_above_the_floor() -> None:
    report = {
        "size": 2000,
        "recall": {"p50_ms": 10.0, "cpu_ms": {}},
        "save": {"per_s": 150.0, "cpu_ms": {"memhive": 6.0, "total (stack)": 7.0}},
        "encoder_pass_ms": 2.5,
        "bus": {},
        "floor": FLOOR,
    }
    text = render(report)
    assert "| **the stack's floor** | **2.00** |" in text
    assert "memhive's own code adds 2.5 ms of CPU a save above that floor." in text
