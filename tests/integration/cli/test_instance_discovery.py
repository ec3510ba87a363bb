"""How a command finds the running `memhive run` (memhive_cli/instance.py), on real files and
real processes: the data dir's record, the per-user registry, stale and several records."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memhive_adapters.process_lifetime import command_line

from memhive_cli.instance import (
    INSTANCE_FILE,
    Instance,
    SeveralInstances,
    find_instance,
    read_instance,
    registry_dir,
    remove_instance,
    write_instance,
)


@pytest.fixture
def stand_ins() -> Iterator[list[subprocess.Popen]]:
    """Processes whose command line reads like `memhive run` (what a live record needs)."""
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _memhive_run(stand_ins: list[subprocess.Popen]) -> int:
    command = [sys.executable, "-c", "import time; time.sleep(300)", "memhive", "run"]
    stand_ins.append(subprocess.Popen(command))
    return _execed(stand_ins[-1].pid)


def _execed(pid: int) -> int:
    """Popen may return while the child's exec is under way (vfork), its argv still empty: a
    real `memhive run` writes its record long after."""
    deadline = time.monotonic() + 10
    while not command_line(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return pid


def _environ(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"XDG_RUNTIME_DIR": str(tmp_path / "runtime"), "HOME": str(tmp_path / "home"), **more}


def _instance(data_dir: Path, pid: int, port: int = 18080) -> Instance:
    return Instance(data_dir, f"http://127.0.0.1:{port}", "nats://127.0.0.1:14222", pid)


def test_a_live_record_is_found_from_its_data_dir_and_from_anywhere(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    instance = _instance(tmp_path / "data", _memhive_run(stand_ins))
    write_instance(instance, environ)

    assert find_instance(environ | {"MEMHIVE_DATA_DIR": str(tmp_path / "data")}) == instance
    assert find_instance(environ) == instance  # ./.memhive has none: the registry's only one
    for path in (tmp_path / "data" / INSTANCE_FILE, *registry_dir(environ).iterdir()):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(registry_dir(environ).stat().st_mode) == 0o700


def test_the_working_directorys_memhive_comes_before_the_registry(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    here = _instance(tmp_path / ".memhive", _memhive_run(stand_ins), 18081)
    elsewhere = _instance(tmp_path / "elsewhere", _memhive_run(stand_ins), 18082)
    write_instance(here, environ)
    write_instance(elsewhere, environ)
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        assert find_instance(environ) == here
    finally:
        os.chdir(cwd)


def test_a_named_data_dir_without_a_live_record_finds_nothing(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    write_instance(_instance(tmp_path / "running", _memhive_run(stand_ins)), environ)
    assert find_instance(environ | {"MEMHIVE_DATA_DIR": str(tmp_path / "other")}) is None


def test_stale_records_are_ignored(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    gone = subprocess.Popen([sys.executable, "-c", "pass", "memhive", "run"])
    gone.wait()
    other_program = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    stand_ins.append(other_program)  # a pid reused by a program that is not memhive
    _execed(other_program.pid)
    write_instance(_instance(tmp_path / "crashed", gone.pid), environ)
    write_instance(_instance(tmp_path / "reused", other_program.pid), environ)

    assert read_instance(tmp_path / "crashed") is None
    assert read_instance(tmp_path / "reused") is None
    assert find_instance(environ) is None
    live = _instance(tmp_path / "live", _memhive_run(stand_ins))
    write_instance(live, environ)
    assert find_instance(environ) == live


def test_several_live_instances_are_an_error_that_names_them(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    for name in ("one", "two"):
        write_instance(_instance(tmp_path / name, _memhive_run(stand_ins)), environ)
    with pytest.raises(SeveralInstances, match="MEMHIVE_DATA_DIR") as raised:
        find_instance(environ)
    assert str(tmp_path / "one") in str(raised.value) and str(tmp_path / "two") in str(raised.value)


@pytest.mark.parametrize("argv", [["recall", "q"], ["token", "list"]], ids=["http", "bus"])
def test_a_command_facing_several_instances_says_so_in_one_line(
    tmp_path, stand_ins, argv: list[str]
) -> None:
    environ = _environ(tmp_path)
    for name in ("one", "two"):
        write_instance(_instance(tmp_path / name, _memhive_run(stand_ins)), environ)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHIVE_")} | environ
    done = subprocess.run(
        [sys.executable, "-m", "memhive_cli.main", *argv],
        env=env | {"MEMHIVE_TOKEN": "mh_x_y"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert (
        line.startswith("memhive: 2 memhive instances are running") and "MEMHIVE_DATA_DIR" in line
    )


def test_removing_leaves_a_newer_record_of_the_same_data_dir_alone(tmp_path, stand_ins) -> None:
    environ = _environ(tmp_path)
    older = _instance(tmp_path / "data", _memhive_run(stand_ins), 18083)
    newer = _instance(tmp_path / "data", _memhive_run(stand_ins), 18084)
    write_instance(older, environ)
    write_instance(newer, environ)
    remove_instance(older, environ)
    assert read_instance(tmp_path / "data") == newer
    remove_instance(newer, environ)
    assert not (tmp_path / "data" / INSTANCE_FILE).exists()
    assert list(registry_dir(environ).iterdir()) == []


def test_without_a_runtime_dir_the_registry_is_in_the_state_dir(tmp_path) -> None:
    assert registry_dir({"XDG_STATE_HOME": "/s"}) == Path("/s/memhive/instances")
    assert registry_dir({"HOME": "/h"}) == Path("/h/.local/state/memhive/instances")
    assert registry_dir({"XDG_RUNTIME_DIR": "/r", "HOME": "/h"}) == Path("/r/memhive/instances")
