"""The `memhive` command against a real `memhive run`, from a shell that knows nothing of it:
no MEMHIVE_* variable, another working directory. The commands find the instance from the
record it writes, a token comes from `memhive login`, and the record goes away with it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.running_stack import free_port
from memhive_cli.instance import INSTANCE_FILE, find_instance, registry_dir
from tests.e2e.process import TOKEN, MemhiveProcess

# What a fresh shell has: none of memhive's variables (the model cache is only a speed-up).
KEPT = {"MEMHIVE_EMBEDDING__CACHE_DIR"}


@pytest.fixture
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """This test's own instance registry and config dir, for memhive run and the commands."""
    dirs = {
        "XDG_RUNTIME_DIR": str(tmp_path / "runtime"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    for name, value in dirs.items():
        monkeypatch.setenv(name, value)
    return dirs


def _shell(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHIVE_") or k in KEPT}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)

    def memhive(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "memhive_cli.main", *argv]
        return subprocess.run(command, env=env, cwd=elsewhere, input=stdin, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    return memhive


def _recorded(memhive: MemhiveProcess, timeout_s: float = 30) -> dict:
    record = memhive.data_dir / INSTANCE_FILE
    deadline = time.monotonic() + timeout_s
    while not record.exists():
        assert time.monotonic() < deadline, f"no {record}:\n{memhive.output()}"
        time.sleep(0.05)
    return json.loads(record.read_text())


@pytest.mark.timeout(300)
def test_commands_find_the_running_instance_and_talk_to_it(tmp_path, user_dirs) -> None:
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    run = _shell(tmp_path)
    try:
        memhive.wait_until_healthy()
        record = _recorded(memhive)
        assert record["http_url"] == memhive.url and record["pid"] == memhive.process.pid
        assert stat.S_IMODE((memhive.data_dir / INSTANCE_FILE).stat().st_mode) == 0o600

        refused = run("recall", "which Swift version?")
        assert refused.returncode == 2 and "memhive login" in refused.stderr, refused.stderr
        assert run("login", stdin=f"{TOKEN}\n").returncode == 0

        saved = run("save", "decision", "The iOS app targets Swift 6", "--product", "ios", "--json")
        assert saved.returncode == 0, saved.stderr
        memory_id = json.loads(saved.stdout)["id"]
        recalled = run("recall", "which Swift version?", "--product", "ios", "--verbose")
        assert recalled.returncode == 0, recalled.stderr
        assert memory_id in recalled.stdout and "The iOS app targets Swift 6" in recalled.stdout
        assert f"talking to memhive at {memhive.url}" in recalled.stderr
        assert str(memhive.data_dir) in recalled.stderr and "httpx" not in recalled.stderr
        assert "The iOS app targets Swift 6" in run("get", memory_id).stdout
        listed = json.loads(run("list", "--product", "ios", "--json").stdout)
        assert [m["id"] for m in listed["items"]] == [memory_id]

        assert run("probe", "ready").returncode == 0  # its port, not 8080
        exported = run("export")  # issue 28's command: the same instance and token
        assert exported.returncode == 0 and memory_id in exported.stdout, exported.stderr
        tokens = run("token", "list", "--verbose")  # a bus command: the instance's bus too
        assert tokens.returncode == 0, tokens.stderr
        assert f"bus {record['bus_url']}" in tokens.stderr and " dev " in tokens.stdout

        assert run("forget", memory_id).stdout.startswith(f"forgot {memory_id}")
        gone = run("get", memory_id)
        assert gone.returncode == 1 and gone.stderr.startswith("memhive: "), gone.stderr

        assert memhive.ctrl_c() == 0, memhive.output()
        assert not (memhive.data_dir / INSTANCE_FILE).exists()
        assert list(registry_dir(user_dirs).iterdir()) == []
    finally:
        memhive.ensure_gone()


@pytest.mark.timeout(300)
def test_a_killed_instances_record_is_ignored(tmp_path, user_dirs) -> None:
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    try:
        memhive.wait_until_healthy()
        _recorded(memhive)
        assert find_instance(user_dirs) is not None
        memhive.kill()
        assert (memhive.data_dir / INSTANCE_FILE).exists()  # nobody removed it
        assert find_instance(user_dirs) is None
        assert find_instance(user_dirs | {"MEMHIVE_DATA_DIR": str(memhive.data_dir)}) is None
    finally:
        memhive.ensure_gone()
