"""Length-sorted mini-batches and per-batch padding."""

from __future__ import annotations

import random

import pytest
from memhive_adapters.embedding.batch_plan import plan_batches
from memhive_adapters.embedding.word_pieces import pad


def test_every_index_lands_in_exactly_one_batch() -> None:
    lengths = [random.Random(7).randint(2, 256) for _ in range(500)]
    batches = plan_batches(lengths, max_batch=64, max_tokens=8192)
    assert sorted(index for batch in batches for index in batch) == list(range(500))


def test_batches_run_longest_first_and_respect_both_limits() -> None:
    rng = random.Random(11)
    lengths = [rng.randint(2, 256) for _ in range(300)]
    batches = plan_batches(lengths, max_batch=16, max_tokens=1024)
    flattened = [lengths[index] for batch in batches for index in batch]
    assert flattened == sorted(lengths, reverse=True)
    for batch in batches:
        assert len(batch) <= 16
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 1024


def test_an_item_longer_than_the_token_budget_gets_its_own_batch() -> None:
    assert plan_batches([300, 5, 5], max_batch=8, max_tokens=100) == [[0], [1, 2]]


def test_no_texts_no_batches() -> None:
    assert plan_batches([], max_batch=8, max_tokens=100) == []


@pytest.mark.parametrize("pad_id", [0, 7])
def test_pad_right_pads_to_the_longest_and_masks_real_tokens(pad_id: int) -> None:
    ids, mask = pad([[101, 5, 102], [101, 102]], pad_id=pad_id)
    assert ids.tolist() == [[101, 5, 102], [101, 102, pad_id]]
    assert mask.tolist() == [[1, 1, 1], [1, 1, 0]]
