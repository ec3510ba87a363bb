"""End to end: `memhive run` as a newcomer starts it, driven over real HTTP by two clients."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_client import MemhiveClient, NotFound

from bench.running_stack import free_port

TOKEN = "e2e-dev-token"


@contextmanager
def memhive_run(data_dir: Path, http_port: int, nats_port: int) -> Iterator[str]:
    env = os.environ | {
        "MEMHIVE_DATA_DIR": str(data_dir),
        "MEMHIVE_HTTP_PORT": str(http_port),
        "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{nats_port}",
        "MEMHIVE_DEV_TOKEN": TOKEN,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "memhive_cli.main", "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{http_port}"
    try:
        _wait_until_healthy(url, process)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
        assert process.returncode == 0, output


def _wait_until_healthy(url: str, process: subprocess.Popen) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise AssertionError(f"memhive run exited early:\n{process.stdout.read()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        asyncio.run(asyncio.sleep(0.1))
    raise AssertionError("memhive run did not become healthy")


def _client(url: str) -> MemhiveClient:
    return MemhiveClient(url, TOKEN, timeout_s=30)


def _recall(client: MemhiveClient, query: str, **fields) -> list[str]:
    return [hit.id for hit in client.recall(query, **fields)]


async def _lanes_hold(data_dir: Path, ids: list[str]) -> tuple[set[str], set[str]]:
    vector, lexical = (
        EdgeVectorIndex(data_dir / "qdrant-edge", 384),
        TantivyLexicalIndex(data_dir / "tantivy"),
    )
    await vector.ensure_ready()
    await lexical.ensure_ready()
    try:
        return await vector.present("dev", ids), await lexical.present("dev", ids)
    finally:
        await vector.close()
        await lexical.close()


def test_save_recall_forget_and_restart(tmp_path: Path) -> None:
    http_port, nats_port = free_port(), free_port()
    with memhive_run(tmp_path, http_port, nats_port) as url:
        with _client(url) as writer:
            kept = writer.save(
                "decision", "We release the iOS app every second Tuesday", wait="indexed"
            )
            gone = writer.save("fact", "The release manager this quarter is Priya", wait="indexed")
            assert kept.status == gone.status == "indexed"
        with _client(url) as reader:  # a second client, as a fresh agent session would be
            assert _recall(reader, "how often do we ship the iPhone app?")[0] == kept.id
            assert _recall(reader, "who is the release manager?")[0] == gone.id
            assert reader.forget(gone.id, wait="indexed").status == "forgotten"
            for lanes in (["vector"], ["lexical"]):
                assert gone.id not in _recall(reader, "release manager Priya", lanes=lanes)
            plan = reader.set_state("global", "release-plan", {"train": "2.1"}, create_only=True)
            # What just happened, newest first: the forget, then the saves.
            kinds = [
                (e.kind, e.memories[0].id)
                for e in reader.iter_activity(kind=["saved", "forgotten"])
            ]
            assert kinds == [("forgotten", gone.id), ("saved", gone.id), ("saved", kept.id)]
        # The dashboard and the API docs are served by the same process, offline.
        assert httpx.get(f"{url}/memory/sign-in").status_code == 200
        assert "swagger-ui-bundle.js" in httpx.get(f"{url}/docs").text
    present = asyncio.run(_lanes_hold(tmp_path, [kept.id, gone.id]))
    assert present == ({kept.id}, {kept.id})

    with memhive_run(tmp_path, http_port, nats_port) as url, _client(url) as client:
        assert _recall(client, "iOS release cadence")[0] == kept.id
        with pytest.raises(NotFound):
            client.get(gone.id)
        kept_state = client.get_state("global", "release-plan")  # the bucket survives a restart
        assert (kept_state.value, kept_state.revision) == ({"train": "2.1"}, plan.revision)
