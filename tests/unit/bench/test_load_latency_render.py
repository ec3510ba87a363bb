"""The load bench's report: where the bulk load's CPU went, by process and by size."""

from __future__ import annotations

from bench.load_latency import render_bulk_cpu


def test_the_bulk_loads_cpu_is_listed_by_process_with_the_stacks_total_last() -> None:
    report = {
        "sizes": {
            10_000: {
                "bulk_cpu_ms_per_memory": {
                    "memhive": 2.5,
                    "nats-server": 1.0,
                    "client": 0.4,
                    "total (stack)": 3.5,
                }
            },
            100_000: {
                "bulk_cpu_ms_per_memory": {
                    "memhive": 5.0,
                    "ingest (child)": 2.5,
                    "nats-server": 1.5,
                    "client": 0.4,
                    "total (stack)": 9.0,
                }
            },
        }
    }

    lines = render_bulk_cpu(report).splitlines()

    assert lines[0] == "| bus bulk load, CPU per memory (ms) | to 10,000 | to 100,000 |"
    assert lines[2:] == [
        "| ingest (child) | 0.00 | 2.50 |",
        "| memhive | 2.50 | 5.00 |",
        "| nats-server | 1.00 | 1.50 |",
        "| client | 0.40 | 0.40 |",
        "| total (stack) | 3.50 | 9.00 |",
    ]


def test_a_report_without_bulk_cpu_renders_nothing() -> None:
    assert render_bulk_cpu({"sizes": {10_000: {"bulk_load_per_s": 400.0}}}) == ""
