"""`memhive run` and its ingest child (`memhive serve`) collect garbage as servers should:
saves leave few young collections behind (CPython's default threshold made one every ~8
saves, and a full collection that stopped the event loop for 140-220 ms every ~1,000), and
/metrics shows the collections of each process in the tree (`prometheus_client`'s
collector). The embedded nats-server, a Go program, gets the soft memory limit set for it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest
from memhive_adapters.nats.embedded_server import GO_MEMORY_LIMIT

from bench.running_stack import free_port
from tests.e2e.process import TOKEN, MemhiveProcess
from tests.processes import environment_of

SAVES = 300
CLIENTS = 8
# With CPython's default (700) these saves took ~45 young collections in the gateway's
# process; with memhive's (5,000), 1-3.
MOST_YOUNG_COLLECTIONS = 12
# The ingest child (`memhive serve ingest`) does nothing for a save the gateway records, so
# its young collections are counted from its start, imports included: 62-77 with memhive's
# threshold set before them, 205-281 with CPython's.
MOST_YOUNG_COLLECTIONS_AT_START = 150
NATS_MEMORY_LIMIT = "MEMHIVE_NATS__EMBEDDED_MEMORY_LIMIT"


@pytest.mark.timeout(300)
async def test_saves_leave_few_young_collections_in_each_serving_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(GO_MEMORY_LIMIT, raising=False)
    memhive = MemhiveProcess(
        tmp_path / "data", free_port(), free_port(), "run", env={NATS_MEMORY_LIMIT: "768MiB"}
    )
    try:
        memhive.wait_until_ready()
        nats_environment = environment_of(memhive.nats_server_pid())
        async with httpx.AsyncClient(base_url=memhive.url, timeout=60,
                                     headers={"Authorization": f"Bearer {TOKEN}"}) as http:  # fmt: skip
            before = _collections(await http.get("/metrics"))
            await _saves(http)
            after = _collections(await http.get("/metrics"))

        assert set(before) >= {("0", "memhive"), ("2", "memhive"), ("0", "memhive-ingest")}, before
        young = after[("0", "memhive")] - before[("0", "memhive")]
        assert young <= MOST_YOUNG_COLLECTIONS, (before, after)
        assert before[("0", "memhive-ingest")] <= MOST_YOUNG_COLLECTIONS_AT_START, before
        assert nats_environment.get(GO_MEMORY_LIMIT) == str(768 * 2**20), nats_environment
        assert memhive.ctrl_c() == 0, memhive.output()
    finally:
        memhive.ensure_gone()


async def _saves(http: httpx.AsyncClient) -> None:
    bodies = iter(range(SAVES))

    async def client() -> None:
        for n in bodies:
            body = f"Deploy {n} of the billing service moved to region eu-{n % 7} on day {n}"
            saved = await http.post("/v1/memories?wait=indexed", json={"kind": "event",
                                    "body": body, "force": True})  # fmt: skip
            assert saved.status_code in (200, 201, 202), saved.text

    await asyncio.gather(*(client() for _ in range(CLIENTS)))


def _collections(metrics: httpx.Response) -> dict[tuple[str, str], float]:
    """python_gc_collections_total by (generation, service)."""
    assert metrics.status_code == 200
    found = {}
    for line in metrics.text.splitlines():
        if line.startswith("python_gc_collections_total{"):
            generation = re.search(r'generation="(\d)"', line).group(1)
            service = re.search(r'service="([^"]+)"', line).group(1)
            found[(generation, service)] = float(line.rsplit(" ", 1)[1])
    return found
