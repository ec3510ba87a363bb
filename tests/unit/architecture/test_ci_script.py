"""`.ci/run` is what CI runs on a clean clone: a syntax error there fails CI after one
second, before a single test (it happened once, when a merge put a block inside its header
comment). bash parses it here without running it, and it still ends with the README's
test command."""

from __future__ import annotations

import subprocess
from pathlib import Path

CI_RUN = Path(__file__).resolve().parents[3] / ".ci" / "run"


def test_the_ci_script_parses() -> None:
    parsed = subprocess.run(["bash", "-n", str(CI_RUN)], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr


def test_the_ci_script_runs_make_test_last() -> None:
    lines = [line.strip() for line in CI_RUN.read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert commands[-1] == "make test"
    assert "set -euo pipefail" in commands
