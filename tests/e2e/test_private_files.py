"""What memhive keeps on disk is its user's alone, whatever umask it is started with: the
data dir and the lane folders 0700, their files 0600 or tighter, and a backup a 0700
directory of 0600 files (it holds every private memory and the token digests)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from bench.running_stack import free_port
from tests.e2e.process import MemhiveProcess, client, memhive_command

SHELL_UMASK = 0o022  # what most shells give: files 0644, directories 0755


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def opened_to_others(tree: Path) -> dict[str, str]:
    """Every path under `tree` (itself included) that group or others may use. A path gone
    between the listing and its stat (a lane's temporary file, renamed) is no longer there to
    use."""
    found = {}
    for p in [tree, *tree.rglob("*")]:
        try:
            if (bits := mode(p)) & 0o077:
                found[str(p.relative_to(tree))] = oct(bits)
        except FileNotFoundError:
            continue
    return found


@pytest.mark.timeout(600)
def test_data_dir_lanes_and_backups_are_private_under_a_0022_umask(tmp_path: Path) -> None:
    data, nats_port = tmp_path / "data", free_port()
    data.mkdir(mode=0o755)
    data.chmod(0o755)  # made by someone else, open to all: memhive closes it
    memhive = MemhiveProcess(data, free_port(), nats_port, "modes", umask=SHELL_UMASK)
    try:
        memhive.wait_until_ready()
        with client(memhive.url) as agent:
            agent.save("fact", "The vault combination is kept in the private wiki", wait="indexed")
        backup = tmp_path / "backup"
        taken = memhive_command(data, nats_port, "backup", str(backup), umask=SHELL_UMASK)
        assert taken.returncode == 0, taken.stderr

        assert mode(data) == 0o700
        for lane in ("qdrant-edge", "tantivy", "nats", "bus"):
            assert mode(data / lane) == 0o700, lane
        assert opened_to_others(data) == {}
        assert mode(backup) == 0o700
        files = [p for p in backup.iterdir() if p.is_file()]
        assert files and {mode(p) for p in files} == {0o600}
        assert memhive.ctrl_c() == 0, memhive.output()
    finally:
        memhive.ensure_gone()
