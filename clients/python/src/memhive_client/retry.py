"""Retries with exponential backoff on 429 and 503 (and on a refused connection), honouring
Retry-After. Other answers are final: a 4xx will not change by asking again."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 4  # in all, the first one included
    backoff_s: float = 0.25  # doubled each time
    max_backoff_s: float = 8.0

    def delay(self, attempt: int, response: httpx.Response | None) -> float:
        """Seconds to sleep after failed attempt number `attempt` (1-based)."""
        if response is not None:
            retry_after = response.headers.get("retry-after", "")
            if retry_after.replace(".", "", 1).isdigit():
                return min(float(retry_after), self.max_backoff_s)
        return min(self.backoff_s * 2 ** (attempt - 1), self.max_backoff_s)

    def should_retry(self, attempt: int, response: httpx.Response | None) -> bool:
        if attempt >= self.attempts:
            return False
        return response is None or response.status_code in RETRY_STATUSES
