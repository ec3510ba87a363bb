"""The floor of a save's CPU on this machine: the least each part of the fixed architecture
costs, measured alone with the libraries memhive runs on, beside one encoder pass:
`python -m bench.stack_floor [saves]` (default 3,000).

- **HTTP**: a POST of a save's JSON to a FastAPI app that validates it with pydantic and
  answers a memory's JSON, nothing else (no auth, no middleware, no telemetry), under
  uvicorn with httptools, as `memhive run` serves; 16 aiohttp clients, as memhive's Python
  client sends. The server process's CPU per request.
- **Bus**: what a save that waits for `indexed` puts on JetStream at the least, with nats-py
  against the same nats-server binary: four publishes the stream acknowledges (the record,
  `MemorySaved`, `MemoryIndexed`, the audit entry) and three deliveries to durable pull
  consumers, each acknowledged (embed's of `MemorySaved`; the link classifier's and the
  bulletin's of `MemoryIndexed`); 16 saves in flight. This process's CPU and nats-server's
  per save.
- **Lanes**: memhive's own lanes (qdrant-edge and tantivy, `build_vector_index`,
  `build_lexical_index`) in this process, over a store of 1,000 memories (searched exactly,
  as a store below `hnsw_after` is): per save, the near-duplicate check's search of the
  scope, and one memory written to each lane (the lexical lane's group commits included).
- **One encoder pass** of the default encoder, as `bench.cost_accounting` counts it.

The sum is what the issue's bound (a save at most two passes: the stack at most one) is
held against: what memhive's own code adds on top is the measured save less this floor.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import nats
import numpy as np
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from memhive_adapters.nats.embedded_server import find_nats_server
from memhive_adapters.runtime.lane_builders import (
    build_embedder,
    build_lexical_index,
    build_vector_index,
)
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter
from memhive_settings import MemhiveSettings
from nats.js.api import AckPolicy, ConsumerConfig, StorageType, StreamConfig
from pydantic import BaseModel, Field

from bench.load_latency import fresh_notes
from bench.process_cpu import cpu_seconds
from bench.running_stack import free_port

SAVES, CLIENTS, STORE = 3_000, 16, 1_000
DIMENSIONS = 384
NEIGHBOURS = 6  # what the gateway's near-duplicate check asks the vector lane for


# --- HTTP: the app a save's request needs at the least -------------------------------------


class FloorSave(BaseModel):
    kind: str = Field(max_length=32)
    body: str = Field(max_length=16_000)
    force: bool = False
    tags: list[str] = Field(default_factory=list, max_length=32)


floor_app = FastAPI()


@floor_app.post("/v1/memories", status_code=201)
async def floor_save(request: FloorSave, wait: str = "indexed") -> JSONResponse:
    memory = {
        "id": str(uuid.uuid4()),
        "kind": request.kind,
        "body": request.body,
        "tags": request.tags,
        "created_at": datetime.now(UTC).isoformat(),
        "importance": 0.5,
        "scope": "workspace",
        "visibility": "shared",
    }
    return JSONResponse({"id": memory["id"], "status": wait, "memory": memory}, 201)


def _wait_listening(port: int, process: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


async def _post_all(url: str, bodies: list[str]) -> tuple[float, int]:
    """The seconds the saves took, and how many were answered 201."""
    queue = list(reversed(bodies))
    answered = 0
    began = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=CLIENTS)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def client() -> None:
            nonlocal answered
            while queue:
                body = queue.pop()
                payload = {"kind": "event", "body": body, "force": True}
                async with session.post(url, json=payload, params={"wait": "indexed"}) as answer:
                    if answer.status != 201:
                        raise RuntimeError(f"the floor's app answered {answer.status}")
                    await answer.json()
                    answered += 1

        await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return time.perf_counter() - began, answered


def http_floor(saves: int) -> dict[str, float]:
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "bench.stack_floor:floor_app", "--port", str(port)]
    command += ["--http", "httptools", "--loop", "asyncio", "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=Path(__file__).parent.parent)
    try:
        _wait_listening(port, process)
        url = f"http://127.0.0.1:{port}/v1/memories"
        asyncio.run(_post_all(url, fresh_notes(300)))  # warm up
        before = cpu_seconds(process.pid)
        elapsed, answered = asyncio.run(_post_all(url, fresh_notes(saves)))
        cpu = cpu_seconds(process.pid) - before
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"cpu_ms": cpu / saves * 1000, "per_s": saves / elapsed, "answered": answered}


# --- Bus: a save's publishes and deliveries at the least -----------------------------------


async def _bus_saves(url: str, saves: int, bodies: list[str]) -> tuple[float, int]:
    """The seconds the saves took, and the fewest `MemoryIndexed` a consumer took."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_stream(StreamConfig(name="FLOOR", subjects=["floor.>"], storage=StorageType.FILE))
    durable = ConsumerConfig(ack_policy=AckPolicy.EXPLICIT, max_ack_pending=10_000)
    embed = await js.pull_subscribe("floor.saved", "embed", config=durable)
    classifier = await js.pull_subscribe("floor.indexed", "classifier", config=durable)
    bulletin = await js.pull_subscribe("floor.indexed", "bulletin", config=durable)
    delivered = {"classifier": 0, "bulletin": 0}
    done = asyncio.Event()

    async def consume(name: str, subscription, then=None) -> None:
        while not done.is_set():
            try:
                batch = await subscription.fetch(64, timeout=0.5)
            except TimeoutError:
                continue
            for msg in batch:
                if then is not None:
                    await then(msg.data)
                await msg.ack()
            if name in delivered:
                delivered[name] += len(batch)
                if all(n >= saves for n in delivered.values()):
                    done.set()

    async def index(data: bytes) -> None:
        await js.publish("floor.indexed", data)

    consumers = [
        asyncio.create_task(consume("embed", embed, index)),
        asyncio.create_task(consume("classifier", classifier)),
        asyncio.create_task(consume("bulletin", bulletin)),
    ]
    queue = list(reversed(bodies[:saves]))

    async def client() -> None:
        while queue:
            body = queue.pop().encode()
            await js.publish("floor.record", body)
            await js.publish("floor.saved", body)
            await js.publish("floor.audit", body[:200])

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(CLIENTS)))
    await asyncio.wait_for(done.wait(), timeout=120)
    elapsed = time.perf_counter() - began
    for task in consumers:
        task.cancel()
    await asyncio.gather(*consumers, return_exceptions=True)
    await nc.close()
    return elapsed, min(delivered.values())


def bus_floor(saves: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="memhive-floor-") as tmp:
        port = free_port()
        command = [str(find_nats_server()), "-js", "-sd", tmp, "-a", "127.0.0.1", "-p", str(port)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_listening(port, server)
            # An event's size: the note and its vector, as `MemorySaved` carries them.
            vector = [0.1] * DIMENSIONS
            bodies = [json.dumps({"body": b, "vector": vector}) for b in fresh_notes(saves)]
            here, there = time.process_time(), cpu_seconds(server.pid)
            elapsed, delivered = asyncio.run(_bus_saves(f"nats://127.0.0.1:{port}", saves, bodies))
            here, there = time.process_time() - here, cpu_seconds(server.pid) - there
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {
        "client_ms": here / saves * 1000,
        "server_ms": there / saves * 1000,
        "per_s": saves / elapsed,
        "delivered": delivered,
    }


# --- Lanes: a save's search and writes ------------------------------------------------------


def _memory(body: str) -> Memory:
    return create_memory(
        MemoryDraft(kind="event", body=body),
        memory_id=str(uuid.uuid4()),
        principal=Principal("ws", "bench"),
        now=datetime.now(UTC),
    )


def _unit_vectors(count: int, dimensions: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dimensions)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


async def _lane_saves(data_dir: Path, saves: int) -> tuple[float, int, int]:
    """CPU seconds of the saves, and how many memories each lane holds after them."""
    settings = MemhiveSettings(data_dir=data_dir)
    embedder = build_embedder(settings)
    vector_lane = build_vector_index(settings, embedder)
    lexical_lane = build_lexical_index(settings)
    stored = [_memory(b) for b in fresh_notes(STORE)]
    vectors = _unit_vectors(STORE + saves, embedder.dimensions, seed=7)
    await vector_lane.upsert(list(zip(stored, vectors[:STORE].tolist(), strict=True)))
    await lexical_lane.upsert(stored)
    new = [_memory(b) for b in fresh_notes(saves)]
    began = time.process_time()
    for memory, vector in zip(new, vectors[STORE:].tolist(), strict=True):
        scope = MemoryFilter(memory.workspace_id, node=memory.scope_ref)
        await vector_lane.search(vector, scope, NEIGHBOURS)
        await vector_lane.upsert([(memory, vector)])
        await lexical_lane.upsert([memory])
    await lexical_lane.persisted()
    cpu = time.process_time() - began
    held = await vector_lane.count(), await lexical_lane.count()
    await vector_lane.close()
    await lexical_lane.close()
    return cpu, *held


def lanes_floor(saves: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="memhive-floor-") as tmp:
        cpu, vectors, documents = asyncio.run(_lane_saves(Path(tmp), saves))
    return {"cpu_ms": cpu / saves * 1000, "vectors": vectors, "documents": documents}


def encoder_pass_ms(passes: int = 200) -> float:
    """As bench.cost_accounting: one note, one thread, the median of CPU per pass."""
    with tempfile.TemporaryDirectory(prefix="memhive-floor-") as tmp:
        embedder = build_embedder(MemhiveSettings(data_dir=tmp))
        samples = []
        for body in fresh_notes(passes + 10):
            began = time.process_time()
            embedder.embed_sync([body])
            samples.append((time.process_time() - began) * 1000)
    return float(np.median(samples[10:]))


PARTS = {
    "http_ms": "HTTP: the request and its answer (the server's process)",
    "bus_client_ms": "bus: 4 publishes, 3 deliveries, their acks (nats-py)",
    "bus_server_ms": "bus: the same in nats-server",
    "lanes_ms": "lanes: the check's search, a write to each lane",
}


def measure(saves: int = SAVES) -> dict[str, float]:
    """CPU per save of each part at the least (ms), by `PARTS`' keys."""
    http, bus, lanes = http_floor(saves), bus_floor(saves), lanes_floor(saves)
    return {
        "http_ms": http["cpu_ms"],
        "bus_client_ms": bus["client_ms"],
        "bus_server_ms": bus["server_ms"],
        "lanes_ms": lanes["cpu_ms"],
    }


def total(floor: dict[str, float]) -> float:
    return sum(floor[part] for part in PARTS)


def render(floor: dict[str, float], one_pass: float) -> str:
    lines = ["| part of a save | CPU at the least (ms) |", "|---|---:|"]
    lines += [f"| {name} | {floor[part]:.2f} |" for part, name in PARTS.items()]
    stack = total(floor)
    lines += [
        f"| **the stack's floor** | **{stack:.2f}** |",
        f"| one encoder pass | {one_pass:.2f} |",
        "",
        f"A save at the least: its pass and the stack's floor, {one_pass + stack:.2f} ms of "
        f"CPU, {(one_pass + stack) / one_pass:.2f} passes (the bound: 2).",
    ]
    return "\n".join(lines)


def main() -> None:
    saves = int(sys.argv[1]) if len(sys.argv) > 1 else SAVES
    print(f"{saves:,} saves a part.\n")
    print(render(measure(saves), encoder_pass_ms()))


if __name__ == "__main__":
    main()
