from __future__ import annotations

import shutil
from pathlib import Path

from memhive_adapters.free_space import available_bytes

# Other writers on this machine move the free space between two reads.
SLACK = 256 << 20


def test_an_existing_dir_reads_what_an_unprivileged_writer_may_use(tmp_path: Path) -> None:
    assert abs(available_bytes(tmp_path) - shutil.disk_usage(tmp_path).free) < SLACK


def test_a_dir_not_made_yet_reads_its_nearest_existing_parent(tmp_path: Path) -> None:
    not_yet = tmp_path / "data" / "lanes" / "vector"
    assert abs(available_bytes(not_yet) - shutil.disk_usage(tmp_path).free) < SLACK
    assert not not_yet.exists()


def test_a_file_in_the_way_reads_the_file_system_it_is_on(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    below = tmp_path / "a-file" / "below"
    assert abs(available_bytes(below) - shutil.disk_usage(tmp_path).free) < SLACK
