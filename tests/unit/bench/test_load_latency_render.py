"""The load bench's report: where the bulk load's CPU went, by process and by size."""

from __future__ import annotations

from bench.load_latency import render_bulk_cpu, render_sizes


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


def test_each_size_shows_the_anonymous_peak_of_its_load_when_measured() -> None:
    row = {"bulk_load_per_s": 1000.0, "load_s": 10.0, "hnsw_wait_s": 3.0, "rss_mib": 900.0}
    report = {
        "idle_rss_mib": 300.0,
        "sizes": {10_000: row, 100_000: {**row, "load_peak_anonymous_mib": 2345.6}},
    }
    lines = render_sizes(report).splitlines()
    assert lines[0].endswith("| anonymous memory's peak during the load (MiB, every process) |")
    assert lines[3].endswith("| 900 |  |")  # a report from before the peak was sampled
    assert lines[4].endswith("| 900 | 2346 |")
