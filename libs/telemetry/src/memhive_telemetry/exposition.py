"""Several processes' Prometheus text as one scrape: under `memhive run`, /metrics shows the
child services' series beside the parent's own, each sample labelled with the service (its
telemetry service name) that reported it. Families of the same name are merged, so the
answer stays valid exposition text (one HELP/TYPE per name)."""

from __future__ import annotations

from collections.abc import Mapping

from prometheus_client import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

SERVICE_LABEL = "service"


def merged_by_service(texts: Mapping[str, bytes]) -> bytes:
    """`texts`: each service's exposition text, by service name."""
    families: dict[str, Metric] = {}
    for service, text in texts.items():
        for family in text_string_to_metric_families(text.decode()):
            merged = families.setdefault(family.name, _empty_like(family))
            if merged.type == family.type:  # the same code reports both: always, in practice
                merged.samples += [
                    s._replace(labels={**s.labels, SERVICE_LABEL: service}) for s in family.samples
                ]
    return generate_latest(_Collected(list(families.values())))


def _empty_like(family: Metric) -> Metric:
    return Metric(family.name, family.documentation, family.type, family.unit)


class _Collected:
    """What generate_latest reads: anything with collect()."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> list[Metric]:
        return self._families
