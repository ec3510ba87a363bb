"""What an operator sees of background services run as their own processes: each one's
/metrics shows its own consumer, and with MEMHIVE_TELEMETRY__LOG_FORMAT=json every log line
is a JSON object, the lines about a message carrying the trace id of the save behind it.

One nats-server; the gateway with ingest in a `memhive run` process; `memhive serve embed`
and `memhive serve link_classifier` as processes of their own (their embedded lanes are their
own, which is all this test needs of them)."""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from pathlib import Path

import httpx
import nats
import pytest
from memhive_adapters.nats.embedded_server import find_nats_server

from tests.e2e.cluster.processes import (
    Process,
    declare_streams,
    free_port,
    memhive,
    spawn,
    wait_ready,
)

TOKEN = "telemetry-test-token"
SAVES = 3
pytestmark = pytest.mark.timeout(300)
# logging's default format, and uvicorn's own ("WARNING:  Invalid HTTP request received.")
PLAIN_LOG_LINE = re.compile(
    r"^(\d{4}-\d\d-\d\d[ T][\d:,.]+ )?(DEBUG|INFO|WARNING|ERROR|CRITICAL)[: ]"
)


def _consumer_metric(text: str, name: str, consumer: str, **labels: str) -> float | None:
    wanted = [f'consumer="{consumer}"', *(f'{k}="{v}"' for k, v in labels.items())]
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and all(w in line for w in wanted):
            return float(line.rsplit(" ", 1)[1])
    return None


async def _metrics_until(process: Process, ready, timeout_s: float = 60) -> str:
    """The process's /metrics once `ready(text)` holds."""
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(timeout=10) as client:
        while True:
            text = (await client.get(f"http://127.0.0.1:{process.http_port}/metrics")).text
            if ready(text):
                return text
            assert time.monotonic() < deadline, f"{process.name} /metrics:\n{text}"
            await asyncio.sleep(0.5)


def _log_records(process: Process) -> list[dict]:
    """The process's log lines, each a JSON object; its banner (print, not logging) is left
    out, and a line in a plain log format fails the test."""
    records = []
    for line in process.log.read_text(errors="replace").splitlines():
        assert not PLAIN_LOG_LINE.match(line), f"{process.name}: {line}"
        if line.startswith("{"):
            records.append(json.loads(line))
    return records


async def _logged(process: Process, wanted, timeout_s: float = 60) -> dict:
    """The first log record of the process for which `wanted(record)` holds."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = [r for r in _log_records(process) if wanted(r)]
        if found:
            return found[0]
        assert time.monotonic() < deadline, process.tail()
        await asyncio.sleep(0.5)


async def _send_garbage_http(port: int) -> None:
    """Bytes that are not HTTP: uvicorn logs "Invalid HTTP request received." (a warning)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"\x16\x03\x01 not http\r\n\r\n")
    await writer.drain()
    await reader.read()
    writer.close()
    await writer.wait_closed()


async def _publish_undecodable(url: str, subject: str) -> str:
    """A message no consumer can decode, sent inside a trace of ours; returns its trace id."""
    trace_id, span_id = uuid.uuid4().hex, uuid.uuid4().hex[:16]
    nc = await nats.connect(url)
    try:
        headers = {"traceparent": f"00-{trace_id}-{span_id}-01", "Nats-Msg-Id": trace_id}
        await nc.jetstream().publish(subject, b"\xff not protobuf", headers=headers)
    finally:
        await nc.close()
    return trace_id


async def test_background_services_expose_their_consumers_and_log_json_with_trace_ids(
    tmp_path: Path,
) -> None:
    nats_dir = tmp_path / "nats"
    nats_dir.mkdir()
    port = free_port()
    command = [str(find_nats_server()), "-js", "-a", "127.0.0.1", "-p", str(port)]
    server = spawn("nats", [*command, "-sd", str(nats_dir / "js")], nats_dir)
    url = f"nats://127.0.0.1:{port}"
    processes: list[Process] = []
    try:
        await declare_streams(url)
        env = {"MEMHIVE_NATS__URL": url, "MEMHIVE_DEV_TOKEN": TOKEN,
               "MEMHIVE_TELEMETRY__LOG_FORMAT": "json"}  # fmt: skip
        gateway = memhive(
            "gateway", ["run"], tmp_path, env | {"MEMHIVE_RUN_SERVICES": '["ingest"]'}
        )
        embed = memhive("embed", ["serve", "embed"], tmp_path, env)
        linker = memhive("link_classifier", ["serve", "link_classifier"], tmp_path, env)
        processes = [gateway, embed, linker]
        await asyncio.to_thread(wait_ready, processes, 180)

        headers = {"Authorization": f"Bearer {TOKEN}"}
        base = f"http://127.0.0.1:{gateway.http_port}"
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            for i in range(SAVES):
                body = {"kind": "fact", "body": f"Telemetry fact {i}: rack {i} is in row {i}"}
                saved = await client.post("/v1/memories", json=body | {"force": True})
                assert saved.status_code == 201, saved.text

        def acked(consumer: str):
            def ready(text: str) -> bool:
                count = _consumer_metric(
                    text, "memhive_consumer_messages_total", consumer, outcome="ack"
                )
                return (count or 0) >= SAVES

            return ready

        embed_metrics = await _metrics_until(embed, acked("embed"))
        linker_metrics = await _metrics_until(linker, acked("link-classifier"))
        # Each process shows its own consumer's lag (not another's), and embed its lanes.
        assert _consumer_metric(embed_metrics, "memhive_consumer_pending", "embed") is not None
        assert _consumer_metric(embed_metrics, "memhive_consumer_messages_total", "ingest") is None
        assert re.search(r'memhive_lane_documents\{[^}]*lane="vector"[^}]*\} [1-9]', embed_metrics)
        pending = _consumer_metric(
            linker_metrics, "memhive_consumer_ack_pending", "link-classifier"
        )
        assert pending is not None

        workspace = "telemetry"
        embed_trace = await _publish_undecodable(url, f"memhive.evt.memory.saved.{workspace}")
        linker_trace = await _publish_undecodable(url, f"memhive.evt.memory.indexed.{workspace}")
        embed_record = await _logged(embed, lambda r: r.get("trace_id") == embed_trace)
        linker_record = await _logged(linker, lambda r: r.get("trace_id") == linker_trace)
        for record in (embed_record, linker_record):
            assert record["level"] == "ERROR" and "dead-lettered" in record["message"], record
            assert set(record) >= {"time", "level", "logger", "message", "trace_id", "span_id"}
        await _metrics_until(
            linker,
            lambda text: (
                _consumer_metric(text, "memhive_consumer_dead_letters_total", "link-classifier")
                == 1
            ),  # fmt: skip
        )
        # The web server's own warnings go through the same JSON lines.
        await _send_garbage_http(gateway.http_port)
        uvicorn_record = await _logged(gateway, lambda r: r["logger"].startswith("uvicorn"))
        assert "Invalid HTTP request" in uvicorn_record["message"], uvicorn_record
        for process in processes:
            _log_records(process)  # every log line JSON, in every process
    finally:
        for process in processes:
            process.stop()
        server.stop()
