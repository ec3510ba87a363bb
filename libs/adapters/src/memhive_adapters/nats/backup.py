"""Backup and restore of memhive's streams through the JetStream API (online, no file access).

What is kept: the log (`MEMHIVE`), activity, dead letters and the KV buckets (the record,
tokens, bulletins, products, key/value memory), each as the server's own stream snapshot
(messages with their sequence numbers and times, and the consumers with their positions),
so a restore is the same state, not a replay. The lanes are not kept: `memhive reindex`
rebuilds them.

A backup directory holds `manifest.json` (each stream's config and state at the
snapshot) and one `<stream>.snapshot` file per stream (the server's compressed tar).
Each stream is consistent in itself; streams are taken one after another. It holds every
private memory and the token digests, so the directory is 0700 and its files 0600.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memhive_contracts import streams
from nats.aio.client import Client
from nats.aio.msg import Msg

from memhive_adapters.private_files import open_private, private_directory, write_private

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
CHUNK_BYTES = 128 * 1024
API_TIMEOUT_S = 10.0
STALL_TIMEOUT_S = 60.0


class BackupError(RuntimeError):
    """The server refused, or the backup directory is not one we can use."""


def memhive_stream_names() -> list[str]:
    buckets = (
        streams.MEMORIES_BUCKET,
        streams.TOKENS_BUCKET,
        streams.BULLETINS_BUCKET,
        streams.PRODUCTS_BUCKET,
        streams.KV_BUCKET,
    )
    return [spec.name for spec in streams.STREAMS] + [f"KV_{bucket}" for bucket in buckets]


@dataclass(frozen=True, slots=True)
class StreamCopy:
    name: str
    messages: int
    bytes: int


async def backup(nc: Client, directory: Path) -> list[StreamCopy]:
    """Snapshot every memhive stream that exists into `directory` (new or empty)."""
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()):
        raise BackupError(f"{directory} is not empty; back up into a new directory")
    private_directory(directory)
    existing = set(await _stream_names(nc))
    manifest: dict = {"version": FORMAT_VERSION, "created_at": _now(), "streams": []}
    copies = []
    for name in memhive_stream_names():
        if name not in existing:
            continue
        snapshot = await _snapshot(nc, name, directory / f"{name}.snapshot")
        manifest["streams"].append(snapshot)
        copies.append(StreamCopy(name, snapshot["state"].get("messages", 0), snapshot["size"]))
    write_private(directory / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return copies


async def restore(nc: Client, directory: Path, *, replace: bool = False) -> list[StreamCopy]:
    """Recreate every stream of the backup. Streams that exist are refused unless `replace`
    (then deleted first: whatever they held is gone)."""
    manifest = _read_manifest(Path(directory))
    present = set(await _stream_names(nc)) & {s["config"]["name"] for s in manifest["streams"]}
    if present and not replace:
        raise BackupError(
            f"streams {sorted(present)} already exist; restore into an empty memhive, "
            "or pass --replace to delete them first"
        )
    copies = []
    for entry in manifest["streams"]:
        name = entry["config"]["name"]
        if name in present:
            await _api(nc, f"$JS.API.STREAM.DELETE.{name}", b"")
        state = await _restore(nc, entry, Path(directory) / entry["file"])
        copies.append(StreamCopy(name, state.get("messages", 0), entry["size"]))
    return copies


async def _snapshot(nc: Client, name: str, path: Path) -> dict:
    inbox = nc.new_inbox()
    chunks: asyncio.Queue[Msg] = asyncio.Queue()

    async def on_chunk(msg: Msg) -> None:
        chunks.put_nowait(msg)

    sub = await nc.subscribe(inbox, cb=on_chunk)  # listen before asking
    try:
        request = {"deliver_subject": inbox, "chunk_size": CHUNK_BYTES}
        answer = await _api(nc, f"$JS.API.STREAM.SNAPSHOT.{name}", json.dumps(request).encode())
        size = await _write_chunks(nc, chunks, path)
    finally:
        await sub.unsubscribe()
    return {"config": answer["config"], "state": answer["state"], "file": path.name, "size": size}


async def _write_chunks(nc: Client, chunks: asyncio.Queue[Msg], path: Path) -> int:
    size = 0
    with open_private(path) as out:
        while True:
            try:
                msg = await asyncio.wait_for(chunks.get(), STALL_TIMEOUT_S)
            except TimeoutError as exc:
                raise BackupError(f"snapshot of {path.stem} stalled") from exc
            if not msg.data:  # end of the snapshot, or an error in its headers
                _raise_on_status(msg, path.stem)
                return size
            out.write(msg.data)
            size += len(msg.data)
            if msg.reply:
                await nc.publish(msg.reply, b"")  # flow control: ready for more


def _raise_on_status(msg: Msg, name: str) -> None:
    headers = msg.headers or {}
    status = headers.get("Status") or headers.get("Nats-Status")
    if status and not status.startswith("2"):
        description = headers.get("Description") or headers.get("Nats-Status-Description", "")
        raise BackupError(f"snapshot of {name} failed: {status} {description}".strip())


async def _restore(nc: Client, entry: dict, path: Path) -> dict:
    name = entry["config"]["name"]
    request = json.dumps({"config": entry["config"], "state": entry["state"]}).encode()
    answer = await _api(nc, f"$JS.API.STREAM.RESTORE.{name}", request)
    deliver = answer["deliver_subject"]
    with path.open("rb") as snapshot:
        while chunk := snapshot.read(CHUNK_BYTES):
            await nc.request(deliver, chunk, timeout=API_TIMEOUT_S)
    done = await nc.request(deliver, b"", timeout=STALL_TIMEOUT_S)  # end: the server loads it
    return _checked(json.loads(done.data), f"restore of {name}").get("state", {})


async def _stream_names(nc: Client) -> list[str]:
    names: list[str] = []
    while True:
        page = await _api(nc, "$JS.API.STREAM.NAMES", json.dumps({"offset": len(names)}).encode())
        names += page.get("streams") or []
        if len(names) >= page.get("total", 0) or not page.get("streams"):
            return names


async def _api(nc: Client, subject: str, payload: bytes) -> dict:
    reply = await nc.request(subject, payload, timeout=API_TIMEOUT_S)
    return _checked(json.loads(reply.data), subject)


def _checked(answer: dict, what: str) -> dict:
    error = answer.get("error")
    if error:
        raise BackupError(f"{what}: {error.get('description', error)}")
    return answer


def _read_manifest(directory: Path) -> dict:
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except FileNotFoundError:
        raise BackupError(f"{directory} holds no memhive backup ({MANIFEST} missing)") from None
    if manifest.get("version") != FORMAT_VERSION:
        raise BackupError(f"unknown backup format {manifest.get('version')!r}")
    return manifest


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
