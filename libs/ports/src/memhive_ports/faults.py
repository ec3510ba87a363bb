"""Failures that heal by themselves: the caller waits and tries again, nothing was lost.

Adapters raise them at the edge (a bus that does not answer, a disk nearly full), entry
points answer them with a status that says so (503 / 507, with Retry-After), and a
consumer naks the message and never dead-letters it for one of these.
"""

from __future__ import annotations


class RetryLater(Exception):
    """Nothing was done; the same request later may succeed."""

    retry_after_s: int = 1


class BusUnavailable(RetryLater):
    """The bus did not answer or did not store the message, even after retries (no stream
    leader during an election, the connection down, the server stalled). Nothing was lost:
    the caller may try again later."""


class InsufficientStorage(RetryLater):
    """Writes are refused while the store's disk is (nearly) full; reads keep working, and
    writes resume by themselves once space is freed."""

    retry_after_s = 30
