"""Which passes start alone: the count every session's passes enter."""

from __future__ import annotations

import threading

from memhive_adapters.embedding.onnx_minilm import PassesRunning


def test_only_a_pass_that_starts_with_none_running_is_alone() -> None:
    running = PassesRunning()
    with running.entered() as first:
        with running.entered() as second:
            assert (first, second) == (True, False)
        with running.entered() as third:  # the first still runs
            assert not third
    with running.entered() as later:  # every pass has ended
        assert later


def test_a_pass_that_fails_is_counted_out() -> None:
    running = PassesRunning()
    try:
        with running.entered():
            raise ValueError("the pass failed")
    except ValueError:
        pass
    with running.entered() as alone:
        assert alone


def test_passes_from_many_threads_leave_the_count_at_zero() -> None:
    running = PassesRunning()
    started = threading.Barrier(8)
    alone: list[bool] = []

    def one_pass() -> None:
        started.wait()
        for _ in range(200):
            with running.entered() as was_alone:
                alone.append(was_alone)

    threads = [threading.Thread(target=one_pass) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(alone) == 1600
    with running.entered() as last:
        assert last
