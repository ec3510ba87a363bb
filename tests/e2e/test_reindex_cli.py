"""End to end: `memhive reindex` against a running `memhive run`, and a restart after it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
from memhive_adapters.lane_conditions import LAYOUT

from bench.running_stack import free_port
from tests.e2e.test_embedded_stack import _client, _recall, memhive_run

FACTS = [
    "The payments team freezes deploys during the last week of each quarter",
    "Grafana dashboards for the API live in the platform folder",
    "The design system tokens are published to npm as @acme/tokens",
]


def _reindex(nats_port: int, data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    # The data dir holds the bus credentials `memhive run` generated (the CLI is the admin).
    env = os.environ | {
        "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{nats_port}",
        "MEMHIVE_DATA_DIR": str(data_dir),
    }
    command = [sys.executable, "-m", "memhive_cli.main", "reindex", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def test_reindex_swaps_generations_and_a_restart_serves_the_new_one(tmp_path: Path) -> None:
    http_port, nats_port = free_port(), free_port()
    with memhive_run(tmp_path, http_port, nats_port) as url, _client(url) as client:
        ids = []
        for body in FACTS:
            saved = client.save("fact", body, wait="indexed")
            assert saved.status == "indexed"
            ids.append(saved.id)

        done = _reindex(nats_port, tmp_path, "--embedding-model", "all-MiniLM-L6-v2")

        assert done.returncode == 0, done.stderr
        assert "reindexed 3 memories into generation 1" in done.stdout
        assert "3/3" in done.stderr  # the progress bar
        assert _recall(client, "when are payment deploys frozen")[0] == ids[0]
        metrics = httpx.get(f"{url}/metrics", timeout=10).text
        assert re.search(r"^memhive_lane_generation(\{[^}]*\})? 1(\.0)?$", metrics, re.M)
    pointer = json.loads((tmp_path / "lanes.json").read_text())
    assert pointer == {"generation": 1, "embedding_model": "all-MiniLM-L6-v2", "layout": LAYOUT}
    assert not (tmp_path / "qdrant-edge").exists() and not (tmp_path / "tantivy").exists()

    with memhive_run(tmp_path, http_port, nats_port) as url, _client(url) as client:
        assert _recall(client, "where are the API dashboards")[0] == ids[1]
        assert _recall(client, "design tokens package", lanes=["vector"])[0] == ids[2]
    refused = _reindex(nats_port, tmp_path)  # memhive run (and its nats-server) is gone
    assert refused.returncode == 2 and "could not reach NATS" in refused.stderr
