"""Log lines that name their service: plain text, or one JSON object per line carrying the
current trace and span id. Under `memhive run` a child service logs to the same stream as its
parent, so every line says which process wrote it.

A dozen lines of our own rather than a logging library: the only fields beyond the standard
record are the service and the trace id, read from OpenTelemetry's current span.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from memhive_telemetry.propagation import current_trace_ids


class JsonLogFormatter(logging.Formatter):
    def __init__(self, service: str | None = None) -> None:
        super().__init__()
        self._service = service

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if self._service:
            entry["service"] = self._service
        ids = current_trace_ids()
        if ids is not None:
            entry["trace_id"], entry["span_id"] = ids
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def text_log_formatter(service: str) -> logging.Formatter:
    named = service.replace("%", "%%")
    return logging.Formatter(f"%(asctime)s %(levelname)s [{named}] %(name)s: %(message)s")


def use_service_logs(
    service: str, log_format: str = "text", root: logging.Logger | None = None
) -> None:
    """Every handler of the root logger (one is added if none) writes lines naming the
    service: text, or JSON with `log_format="json"`."""
    root = root or logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    json_lines = log_format == "json"
    for handler in root.handlers:
        handler.setFormatter(
            JsonLogFormatter(service) if json_lines else text_log_formatter(service)
        )
