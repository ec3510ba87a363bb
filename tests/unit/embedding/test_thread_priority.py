"""A thread's nice value, raised for embed's backlog and never lowered (Linux)."""

from __future__ import annotations

import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from memhive_adapters.embedding.thread_priority import lower_this_thread

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's"
)


def _in_a_thread(*steps) -> int:
    """Runs `steps` in a new thread, then reads that thread's nice value (a thread's own:
    the test's thread keeps its priority)."""

    def run() -> int:
        for step in steps:
            step()
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def _own() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_the_thread_takes_the_niceness_asked_for_and_the_others_keep_theirs() -> None:
    before = _own()
    target = max(before + 1, 7)
    assert _in_a_thread(lambda: lower_this_thread(target)) == target
    assert _own() == before


def test_a_thread_is_never_made_less_nice() -> None:
    # Lowering a nice value needs a privilege; a process started nicer stays so.
    base = max(_own() + 1, 12)
    raised = _in_a_thread(
        lambda: os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), base),
        lambda: lower_this_thread(base - 5),
    )
    assert raised == base
    assert _in_a_thread(lambda: lower_this_thread(0)) == _own()


def test_a_refusal_is_logged_and_the_passes_go_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refused(*_args) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setpriority", refused)
    with caplog.at_level(logging.WARNING):
        assert _in_a_thread(lambda: lower_this_thread(19)) == _own()
    assert "could not lower the backlog thread's priority" in caplog.text
