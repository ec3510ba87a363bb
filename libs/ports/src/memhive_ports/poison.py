"""Poison: how a message handler says a message can never be handled.

The pull consumer that runs every handler (an adapter) dead-letters such a message at once,
with the reason; any other exception is retried with backoff.
"""

from __future__ import annotations


class Poison(Exception):
    """This message can never be handled: dead-letter it at once, with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
