"""`memhive run` is one process tree to observe: the ingest child's log lines reach the
parent's log naming their service, its readiness and metrics are the parent's /readyz and
/metrics, its spans are exported beside the parent's, and one save is one trace from the POST
through embed to the bulletin, every event on the bus carrying it; a forget in the same trace
reaches the ingest child (the gateway records a save itself, ingest applies the commands)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from pathlib import Path

import httpx
import pytest
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_contracts.bus_permissions import ADMIN

from bench.running_stack import free_port
from tests.e2e.process import TOKEN, MemhiveProcess

WAIT_S = 60.0
SAMPLE = r'memhive_consumer_messages_total\{{[^}}]*consumer="{}"[^}}]*service="{}"'
# The spans one save and then its forget must leave in one trace, and the process each is
# exported by.
CHAIN = {
    "POST /v1/memories": "memhive",
    "embed process": "memhive",
    "bulletin refresh": "memhive",
    "ingest process": "memhive-ingest",
}


@pytest.mark.timeout(300)
async def test_one_save_is_one_trace_across_the_process_tree(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMHIVE_TELEMETRY__EXPORTER", "console")  # spans to stdout
    nats_port = free_port()
    memhive = MemhiveProcess(tmp_path / "data", free_port(), nats_port, "run")
    try:
        memhive.wait_until_healthy()
        admin = EmbeddedBusAuth(memhive.data_dir / "bus").seed(ADMIN)
        bus = await connect(f"nats://127.0.0.1:{nats_port}", name="e2e", timeout_s=10,
                            credentials=BusCredentials(ADMIN, nkey_seed=admin))  # fmt: skip
        events = await bus.subscribe("memhive.evt.>")
        trace_id = secrets.token_hex(16)
        async with httpx.AsyncClient(base_url=memhive.url, timeout=60,
                                     headers={"Authorization": f"Bearer {TOKEN}"}) as http:  # fmt: skip
            ready = (await http.get("/readyz")).json()
            saved = await http.post(
                "/v1/memories?wait=indexed",
                json={"kind": "fact", "body": "The build farm lives in Lisbon"},
                headers={"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01"},
            )
            assert saved.status_code == 201, saved.text
            published = await _until_bulletin_refreshed(events)
            forgotten = await http.delete(
                f"/v1/memories/{saved.json()['id']}?wait=persisted",
                headers={"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01"},
            )
            assert forgotten.status_code == 200, forgotten.text
            metrics = await _metrics_until(http, "ingest", "memhive-ingest")
        await bus.jetstream().publish("memhive.cmd.memory.save.dev", b"\xff not protobuf")
        await bus.close()

        assert ready["status"] == "ready" and ready["ingest"] is True, ready
        subjects = [m.subject.rsplit(".", 1)[0] for m in published]
        assert {"memhive.evt.memory.saved", "memhive.evt.memory.indexed"} <= set(subjects)
        for msg in published:  # every event of the save, the bulletin's included
            assert f"-{trace_id}-" in (msg.headers or {}).get("traceparent", ""), msg.subject

        assert re.search(SAMPLE.format("embed", "memhive"), metrics), metrics

        spans = _spans_until(memhive, trace_id, set(CHAIN))
        assert {name: service for name, service in spans if name in CHAIN} == CHAIN
        child_logged = _line_until(memhive, r"\[memhive-ingest\] .*dead-lettered")
        assert "memhive.cmd.memory.save.dev" in child_logged
        assert re.search(r"^\S+ \S+ INFO \[memhive\] ", memhive.output(), re.M)

        assert memhive.ctrl_c() == 0, memhive.output()
        logged = [line for line in memhive.output().splitlines() if not line.startswith("{")]
        assert not [line for line in logged if "Traceback" in line]  # spans may hold some
    finally:
        memhive.ensure_gone()


async def _until_bulletin_refreshed(events) -> list:
    """The dev workspace's events, up to the bulletin's refresh (debounced after the save)."""
    published = []
    async with asyncio.timeout(WAIT_S):
        while True:
            msg = await events.next_msg(timeout=WAIT_S)
            if msg.subject.endswith(".dev"):
                published.append(msg)
            if msg.subject == "memhive.evt.bulletin.refreshed.dev":
                return published


def _spans_until(memhive: MemhiveProcess, trace_id: str, names: set[str]) -> list[tuple[str, str]]:
    """(name, exporting service) of each span of the trace the console exporters printed
    (one JSON object per line, the child's relayed into the parent's output)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        found = [
            (span["name"], span["resource"]["attributes"]["service.name"])
            for line in memhive.output().splitlines()
            if line.startswith("{") and (span := _json(line)) and "context" in span
            and span["context"]["trace_id"] == f"0x{trace_id}"
        ]  # fmt: skip
        if names <= {name for name, _ in found}:
            return found
        assert time.monotonic() < deadline, f"spans of {trace_id}: {found}\n{memhive.output()}"
        time.sleep(0.5)


def _line_until(memhive: MemhiveProcess, pattern: str) -> str:
    deadline = time.monotonic() + WAIT_S
    while not (found := re.search(f"^.*{pattern}.*$", memhive.output(), re.M)):
        assert time.monotonic() < deadline, f"no line like {pattern}:\n{memhive.output()}"
        time.sleep(0.2)
    return found.group(0)


def _json(line: str) -> dict | None:
    try:
        return json.loads(line)
    except ValueError:
        return None


async def _metrics_until(http: httpx.AsyncClient, consumer: str, service: str) -> str:
    """/metrics once it counts a message of `consumer` from `service` (a consumer acks a
    moment after the answer its event allowed)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        metrics = (await http.get("/metrics")).text
        if re.search(SAMPLE.format(consumer, service), metrics):
            return metrics
        assert time.monotonic() < deadline, metrics
        await asyncio.sleep(0.2)
