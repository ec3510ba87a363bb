"""Mini-batches of similar length, so padding to the longest in a batch wastes little work."""

from __future__ import annotations

from collections.abc import Sequence


def plan_batches(lengths: Sequence[int], max_batch: int, max_tokens: int) -> list[list[int]]:
    """Indices into `lengths`, longest first, cut into batches of at most `max_batch` items
    whose padded size (items × longest) stays within `max_tokens`; never an empty batch."""
    order = sorted(range(len(lengths)), key=lambda index: -lengths[index])
    batches: list[list[int]] = []
    for index in order:
        if batches and _fits(batches[-1], lengths, max_batch, max_tokens):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def _fits(batch: list[int], lengths: Sequence[int], max_batch: int, max_tokens: int) -> bool:
    # Longest first, so the batch's first item fixes its padded length.
    return len(batch) < max_batch and (len(batch) + 1) * lengths[batch[0]] <= max_tokens
