"""The README's "Try it" works as written: its shell and Python blocks run in a fresh shell
(an empty environment, no profile) at the root of the checkout, against a real `memhive run`.
Only what the README asks the reader to fill in changes: the token `make run` printed, and the
address (the test's instance listens on a free port, not 8080)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bench.running_stack import free_port
from tests.e2e.process import TOKEN, MemhiveProcess

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.compile(r"^## Try it\n(.*?)^## ", re.S | re.M)
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.S | re.M)
TOKEN_PLACEHOLDER = "<the token make run printed>"
README_ADDRESS = "127.0.0.1:8080"


def try_it_blocks() -> list[tuple[str, str]]:
    [section] = SECTION.findall((ROOT / "README.md").read_text())
    return BLOCK.findall(section)


def shell_script(blocks: list[tuple[str, str]], address: str, workdir: Path) -> str:
    """The blocks in order, as the reader types them into one shell; a Python block is saved
    where the README says and run as it says."""
    lines = ["set -eo pipefail"]
    for language, text in blocks:
        text = text.replace(TOKEN_PLACEHOLDER, TOKEN).replace(README_ADDRESS, address)
        if language == "bash":
            lines.append(text)
        else:
            script = workdir / "try_memhive.py"
            script.write_text(text)
            lines.append(f"python {script}")
    return "\n".join(lines)


def test_the_try_it_section_has_the_blocks_this_test_runs() -> None:
    languages = [language for language, _ in try_it_blocks()]
    assert languages == ["bash", "bash", "python"]
    assert "pip install" not in "".join(text for _, text in try_it_blocks())


@pytest.mark.timeout(300)
def test_the_readme_commands_work_in_a_fresh_shell(tmp_path: Path, monkeypatch) -> None:
    runtime = tmp_path / "runtime"  # a login shell's XDG_RUNTIME_DIR: where instances are
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    try:
        memhive.wait_until_healthy()
        address = memhive.url.removeprefix("http://")
        fresh = {
            "HOME": str(tmp_path / "home"),
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "XDG_RUNTIME_DIR": str(runtime),
            "LANG": "C.UTF-8",
        }
        done = subprocess.run(
            [
                "bash",
                "--noprofile",
                "--norc",
                "-c",
                shell_script(try_it_blocks(), address, tmp_path),
            ],
            cwd=ROOT,
            env=fresh,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        out = done.stdout
        assert re.search(r"^saved \S+ \(product:ios, indexed\)$", out, re.M), out
        assert re.search(r"decision\s+product:ios\s+\S+\s+The iOS app targets Swift 6", out), out
        assert '"status":"duplicate"' in out.replace(" ", ""), out  # curl saves it again
        # curl prints no newline: the Python line follows its JSON
        assert re.search(r"\d\.\d\d decision: The iOS app targets Swift 6$", out, re.M), out
        assert "Traceback" not in done.stderr, done.stderr
    finally:
        memhive.ensure_gone()
