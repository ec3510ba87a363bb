"""How many callers' encoder passes run at once: one per core their threads leave free."""

from __future__ import annotations

import pytest
from memhive_adapters.embedding.onnx_minilm import passes_side_by_side


@pytest.mark.parametrize(
    ("threads", "cores", "passes"),
    [
        (1, 2, 2),  # MiniLM on this machine: a pass per core
        (2, 2, 1),  # MPNet's two threads take both cores
        (1, 1, 1),
        (3, 8, 2),
        (4, 2, 1),  # more threads than cores still leaves one pass
        (0, 8, 1),  # onnxruntime's default: every core for one pass
    ],
)
def test_a_pass_per_core_its_threads_leave_free(threads: int, cores: int, passes: int) -> None:
    assert passes_side_by_side(threads, cores) == passes


def test_the_cores_are_the_ones_this_process_may_run_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1, 2})
    assert passes_side_by_side(1) == 3
