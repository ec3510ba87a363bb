"""A bus command with no bus to reach says so in one line, as a real `memhive` process
(in process, pytest's own log handler hides what the command's logging would print)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port


@pytest.mark.parametrize(
    "argv",
    [["token", "list"], ["dead-letters", "list"], ["audit", "list", "--workspace", "w"]],
    ids=["token", "dead-letters", "audit"],
)
def test_an_unreachable_bus_is_one_line_without_warnings(tmp_path: Path, argv: list[str]) -> None:
    env = os.environ | {
        "MEMHIVE_DATA_DIR": str(tmp_path),
        "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{free_port()}",
        "MEMHIVE_NATS__CONNECT_TIMEOUT_S": "1.5",  # nats-py retries every 0.5 s meanwhile
    }
    done = subprocess.run(
        [sys.executable, "-m", "memhive_cli.main", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("memhive: could not reach NATS at nats://127.0.0.1:"), lines
