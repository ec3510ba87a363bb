"""Structured logs: one JSON object per line, carrying the current trace and span id.

A dozen lines of our own rather than a logging library: the only field beyond the standard
record is the trace id, read from OpenTelemetry's current span.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from memhive_telemetry.propagation import current_trace_ids


class JsonLogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        ids = current_trace_ids()
        if ids is not None:
            entry["trace_id"], entry["span_id"] = ids
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def use_json_logs(root: logging.Logger | None = None) -> None:
    """Every handler of the root logger (one is added if none) writes JSON lines."""
    root = root or logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    for handler in root.handlers:
        handler.setFormatter(JsonLogFormatter())
