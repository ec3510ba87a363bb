"""A benchmark's stack is stopped however the benchmark is stopped."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from bench.running_stack import stack_python, terminated_as_exit


def test_a_sigterm_leaves_through_the_clean_up_and_the_handler_is_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    cleaned_up = []
    with pytest.raises(SystemExit) as stopped, terminated_as_exit():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)  # the handler raises here, long before
        finally:
            cleaned_up.append(True)
    assert stopped.value.code == 128 + signal.SIGTERM and cleaned_up == [True]
    assert signal.getsignal(signal.SIGTERM) is before


def test_outside_the_main_thread_nothing_is_installed() -> None:
    before, seen = signal.getsignal(signal.SIGTERM), []

    def enter() -> None:
        with terminated_as_exit():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    assert seen == [before]


def test_a_variants_own_interpreter_runs_its_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMHIVE_BENCH_STACK_PYTHON", raising=False)
    assert stack_python({}) == sys.executable
    other = {"MEMHIVE_BENCH_STACK_PYTHON": "/baseline/.venv/bin/python"}
    assert stack_python(other) == "/baseline/.venv/bin/python"
