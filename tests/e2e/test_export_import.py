"""`memhive export`, wipe the data dir, `memhive import` into the fresh installation: the same
memories (ids, authors, times, revisions, curation), the same edges and the same recall."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.running_stack import free_port
from tests.e2e.process import TOKEN, MemhiveProcess, client
from tests.e2e.test_backup_restore import FACTS, _answers


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "memhive_cli.main", *args, "--url", url, "--token", TOKEN]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def kept(path: Path) -> tuple[dict, list]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    memories = {
        line["memory"]["id"]: line["memory"] for line in lines if line.get("type") == "memory"
    }
    edges = [line["edge"] for line in lines if line.get("type") == "edge"]
    return memories, edges


@pytest.mark.timeout(900)  # two real starts; slow on a loaded machine
def test_export_wipe_import_gives_the_same_memories_edges_and_recall(tmp_path: Path) -> None:
    data_dir, first_file, second_file = (
        tmp_path / "data",
        tmp_path / "a.jsonl",
        tmp_path / "b.jsonl",
    )
    http_port, nats_port = free_port(), free_port()
    first = MemhiveProcess(data_dir, http_port, nats_port, "first")
    try:
        first.wait_until_healthy()
        with client(first.url) as memhive:
            ids = [memhive.save(kind, body, wait="indexed").id for kind, body in FACTS]
            memhive.link(ids[1], ids[3], "related_to", rationale="both run at night")
            memhive.flag(ids[2], "unverified", "nobody measured it")
            memhive.update(ids[4], tags=["cleanup"], wait="indexed")
            before = _answers(memhive)
        exported = cli(first.url, "export", "-o", str(first_file))
        assert exported.returncode == 0, exported.stderr
        assert first.ctrl_c() == 0
    finally:
        first.ensure_gone()

    shutil.rmtree(data_dir)
    second = MemhiveProcess(data_dir, http_port, nats_port, "second")
    try:
        second.wait_until_healthy()
        imported = cli(second.url, "import", str(first_file))
        assert imported.returncode == 0, imported.stderr
        assert f"{first_file}: 6 created, 0 skipped" in imported.stderr
        # Exported before recalling: a recall counts its hits (access statistics).
        assert cli(second.url, "export", "-o", str(second_file)).returncode == 0
        with client(second.url) as memhive:
            assert _answers(memhive) == before
        again = cli(second.url, "import", str(first_file))
        assert f"{first_file}: 0 created, 6 skipped" in again.stderr
        assert second.ctrl_c() == 0
    finally:
        second.ensure_gone()
    memories, edges = kept(second_file)
    assert (memories, edges) == kept(first_file) and sorted(memories) == sorted(ids)
    assert memories[ids[2]]["curation"]["flags"][0]["reason"] == "nobody measured it"
    assert memories[ids[4]]["revision"] == 2
