"""How much importing one gateway takes on at once.

While an import runs, its file is held as parsed items: up to ~9 bytes of memory per byte
of file (31.5 MiB of short Markdown bullets took ~280 MiB; mem0's JSON ~8, memhive's JSONL
~5). So the files of the imports in flight on one gateway, together, are bounded
(`query.import_bytes_at_once`): an import past the bound is answered 503 with Retry-After
before its body is read, and a pod's memory stays bounded whatever its callers send at once.
A file is counted by its declared length (the longest an import may be when it declares
none) until its body is read, then by its real length, until its answer ends, however it
ends.
"""

from __future__ import annotations

from memhive_ports import RetryLater


class ImportsBusy(RetryLater):
    """Other imports hold this gateway's import memory; this one was not started."""

    retry_after_s = 5


class ImportBudget:
    def __init__(self, bytes_at_once: int, max_file_bytes: int) -> None:
        self._capacity, self._max_file = bytes_at_once, max_file_bytes
        self._held = 0

    @property
    def held(self) -> int:
        return self._held

    def take(self, declared_length: str | None) -> HeldBytes:
        """Raises ImportsBusy when this file would not fit beside the imports in flight."""
        size = _declared(declared_length, self._max_file)
        if self._held + size > self._capacity:
            raise ImportsBusy(
                f"this gateway is busy with other imports ({self._held} of "
                f"{self._capacity} bytes of files in flight): nothing was imported, "
                "try again in a moment"
            )
        self._held += size
        return HeldBytes(self, size)

    def _give_back(self, size: int) -> None:
        self._held -= size


class HeldBytes:
    """One import's share of the budget: shrunk to the body's real length once read, given
    back once (a second release does nothing)."""

    def __init__(self, budget: ImportBudget, size: int) -> None:
        self._budget, self._size = budget, size

    def shrink_to(self, size: int) -> None:
        if size < self._size:
            self._budget._give_back(self._size - size)
            self._size = size

    def release(self) -> None:
        self._budget._give_back(self._size)
        self._size = 0


def _declared(length: str | None, longest: int) -> int:
    """The Content-Length a caller declared, or the longest file when it declares none (a
    chunked upload) or an unreadable one (the request guard refuses longer bodies)."""
    if length is not None and length.isascii() and length.isdigit():
        return min(int(length), longest)
    return longest
