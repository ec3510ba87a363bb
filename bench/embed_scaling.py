"""Distributed mode, per core: `memhive serve embed` with 1 and then 2 processes against one
nats-server on this machine, fed by one `memhive serve ingest`.

    .venv/bin/python -m bench.embed_scaling [--count 3000] [--rounds 2]

Each round starts a fresh nats-server (the wheel's, no auth, JetStream on a temporary dir),
declares the streams, starts ingest and N embed replicas (each with embedded lanes of its
own: there is no Qdrant server or OpenSearch here, so this measures embedding and indexing,
not a shared server's writes), then publishes `count` SaveMemory commands on the bus with
no vector, as an upstream source without an encoder would, and waits until ingest and
embed have drained. Figures: memories/s from the first publish to drained, and the CPU
time (user + system, from /proc) of every process over that span, per memory. Rounds
alternate 1, 2, 1, 2, ... so a busy machine weighs on both alike; medians are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_server import find_nats_server
from memhive_contracts import streams, subjects

from bench.corpus import base_sentences
from bench.load_latency import save_command, wait_drained
from bench.running_stack import free_port

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def serve(service: str, root: Path, url: str, name: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    data_dir = root / name
    data_dir.mkdir()
    env = os.environ | {
        "MEMHIVE_NATS__URL": url,
        "MEMHIVE_NATS__EMBEDDED": "false",
        "MEMHIVE_DATA_DIR": str(data_dir),
        "MEMHIVE_HTTP_PORT": str(port),
        "MEMHIVE_LOG_LEVEL": "WARNING",
    }
    log = (data_dir / "log").open("w")
    command = [sys.executable, "-m", "memhive_cli.main", "serve", service]
    return subprocess.Popen(command, env=env, stdout=log, stderr=log), port


def wait_ready(ports: list[int], timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    for port in ports:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service on port {port} was not ready")
            time.sleep(0.3)


async def declare(url: str) -> None:
    for _ in range(100):
        try:
            nc = await connect(url, name="bench-declare", timeout_s=5)
        except Exception:
            await asyncio.sleep(0.2)
            continue
        await ensure_streams(nc.jetstream(), replicas=1)
        await nc.close()
        return
    raise RuntimeError("nats-server did not answer")


async def publish_and_drain(url: str, count: int, bases: list[str]) -> float:
    """Seconds from the first publish until ingest and embed have drained."""
    nc = await connect(url, name="bench-load", timeout_s=5)
    js = nc.jetstream()
    began = time.perf_counter()
    pending = []
    for n in range(count):
        command = save_command(n, bases[n % len(bases)])  # no vector: embed computes it
        subject = subjects.for_workspace(subjects.SAVE_MEMORY, "dev")
        headers = {streams.MSG_ID_HEADER: command.command_id}
        pending.append(js.publish(subject, command.SerializeToString(), headers=headers))
        if len(pending) >= 500:
            await asyncio.gather(*pending)
            pending.clear()
    await asyncio.gather(*pending)
    await wait_drained(js, ["ingest", "embed"])
    seconds = time.perf_counter() - began
    await nc.close()
    return seconds


def one_round(replicas: int, count: int, bases: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="memhive-embed-scaling-") as tmp:
        root, port = Path(tmp), free_port()
        url = f"nats://127.0.0.1:{port}"
        server = subprocess.Popen(
            [str(find_nats_server()), "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", tmp],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes: list[subprocess.Popen] = []
        try:
            asyncio.run(declare(url))
            started = [serve("ingest", root, url, "ingest")]
            started += [serve("embed", root, url, f"embed-{i}") for i in range(replicas)]
            processes = [p for p, _ in started]
            wait_ready([port for _, port in started])
            watched = {"nats-server": server, "ingest": processes[0], "embed": processes[1:]}
            before = _cpu(watched)
            seconds = asyncio.run(publish_and_drain(url, count, bases))
            after = _cpu(watched)
        finally:
            for process in [*processes, server]:
                process.terminate()
            for process in [*processes, server]:
                process.wait(timeout=60)
    cpu_ms = {name: (after[name] - before[name]) * 1000 / count for name in before}
    return {"replicas": replicas, "per_s": count / seconds, "cpu_ms_per_memory": cpu_ms}


def _cpu(watched: dict) -> dict[str, float]:
    out = {}
    for name, what in watched.items():
        group = what if isinstance(what, list) else [what]
        out[name] = sum(cpu_seconds(p.pid) for p in group)
    return out


def run(count: int, rounds: int) -> list[dict]:
    bases = base_sentences(2000)
    results = []
    for _ in range(rounds):
        for replicas in (1, 2):
            result = one_round(replicas, count, bases)
            print(result, flush=True)
            results.append(result)
    return results


def render(results: list[dict], count: int) -> str:
    lines = [
        f"{count:,} memories on the bus without vectors, per round; medians of the rounds.",
        "",
        "| embed processes | memories/s | CPU per memory, embed (ms) | ingest (ms) | "
        "nats-server (ms) | per-core efficiency |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    by_count = {n: [r for r in results if r["replicas"] == n] for n in (1, 2)}
    one = statistics.median(r["per_s"] for r in by_count[1])
    for n, rows in by_count.items():
        rate = statistics.median(r["per_s"] for r in rows)
        cpu = {
            k: statistics.median(r["cpu_ms_per_memory"][k] for r in rows)
            for k in rows[0]["cpu_ms_per_memory"]
        }
        lines.append(
            f"| {n} | {rate:.0f} | {cpu['embed']:.1f} | {cpu['ingest']:.1f} | "
            f"{cpu['nats-server']:.1f} | {rate / (n * one):.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(render(run(args.count, args.rounds), args.count))


if __name__ == "__main__":
    main()
