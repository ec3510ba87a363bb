"""What the link classifier counts, under memhive.link_classifier.*."""

from __future__ import annotations

from memhive_telemetry import Meter

METER_NAME = "memhive.link_classifier"


class ClassifierMetrics:
    def __init__(self, meter: Meter) -> None:
        def counter(name: str, unit: str, description: str):
            return meter.create_counter(f"{METER_NAME}.{name}", unit=unit, description=description)

        self.llm_calls = counter("llm_calls", "{call}", "chat completions requested")
        self.llm_tokens = counter("llm_tokens", "{token}", "tokens the provider billed")
        self.llm_failures = counter("llm_failures", "{call}", "calls that gave no usable answer")
        self.budget_refusals = counter(
            "budget_refusals", "{call}", "calls not made: over the spend bound; fallback used"
        )
        self.edges_proposed = counter("edges_proposed", "{edge}", "edges sent to ingest")
        self.searches_skipped = counter(
            "searches_skipped", "{memory}", "saves the gateway had checked: no lane search"
        )
