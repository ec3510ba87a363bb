"""What an intruder tries on the bus (issue 11's first paragraph), as data: the publishes,
requests and subscriptions each attack sends. The same attempts are made by clients without
credentials (refused at connect, over nats-py and over the raw protocol) and by a hook of
another workspace (refused one by one). Besides those seven, `every_subject_and_bucket`
generates attempts from memhive_contracts' subject, stream and bucket constants, so a new
subject or bucket is attacked without anyone adding it here.

Every payload carries the run's marker: a spy subscribed to `>` as the bus admin proves that
nothing an attacker sent was delivered anywhere, whatever the subject.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from memhive.v1 import admin_pb2, commands_pb2, memory_pb2, upstream_pb2
from memhive_contracts import streams, subjects
from memhive_contracts.bus_permissions import SERVICES as BUS_USERS
from memhive_contracts.bus_permissions import inbox_prefix

JS = "$JS.API"
BUCKETS = tuple(v for k, v in vars(streams).items() if k.endswith("_BUCKET"))
STREAM_NAMES = (*(spec.name for spec in streams.STREAMS), *(f"KV_{b}" for b in BUCKETS))
# Every subject constant (a wildcard one by its root): commands, events, upstream events,
# activity, dead letters, audit, the admin requests (reindex, tokens).
SUBJECT_ROOTS = tuple(
    sorted(
        {
            v.removesuffix(".>").removesuffix(".*")
            for v in vars(subjects).values()
            if isinstance(v, str) and v.startswith("memhive.")
        }
    )
)


@dataclass(frozen=True, slots=True)
class Attempt:
    kind: str  # "pub", "req" (a publish that expects an answer) or "sub"
    subject: str
    payload: bytes = b""


@dataclass(frozen=True, slots=True)
class Attack:
    name: str
    attempts: tuple[Attempt, ...]
    # KV keys (bucket, key) and log subjects (stream, subject) that must still be empty.
    kv_keys: tuple[tuple[str, str], ...] = ()
    stored: tuple[tuple[str, str], ...] = ()


def _now_pb():
    from google.protobuf.timestamp_pb2 import Timestamp

    stamp = Timestamp()
    stamp.FromDatetime(datetime.now(UTC))
    return stamp


def _forged_note(workspace_id: str, marker: str) -> bytes:
    return upstream_pb2.NoteAdded(
        event_id=marker, workspace_id=workspace_id, note_id="n1", body=f"forged note {marker}",
        occurred_at=_now_pb(),
    ).SerializeToString()  # fmt: skip


def _forged_save(marker: str) -> bytes:
    memory = memory_pb2.Memory(
        id=str(uuid.uuid4()), body=f"the CEO says {marker}", created_by="ceo", pinned=True,
        kind=memory_pb2.MEMORY_KIND_DECISION,
    )  # fmt: skip
    return commands_pb2.SaveMemory(
        command_id=marker, memory=memory, requested_by="ceo", requested_at=_now_pb()
    ).SerializeToString()


def _forged_forget(workspace_id: str, memory_id: str, marker: str) -> bytes:
    return commands_pb2.ForgetMemory(
        command_id=marker, workspace_id=workspace_id, memory_id=memory_id
    ).SerializeToString()


def issue_attacks(victim: str, marker: str, record_key: str) -> list[Attack]:
    """The seven attacks of issue 11 on workspace `victim`. `record_key`: a key of the
    record bucket holding a private body (the test stores it first)."""
    note = subjects.for_workspace(subjects.NOTE_ADDED, victim)
    save = subjects.for_workspace(subjects.SAVE_MEMORY, victim)
    forget = subjects.for_workspace(subjects.FORGET_MEMORY, victim)
    digest = hashlib.sha256(f"mh_forged_{marker}".encode()).hexdigest()
    forged_token = json.dumps(
        {"workspace_id": victim, "user_id": "ceo", "role": "admin", "marker": marker}
    ).encode()
    records = f"KV_{streams.MEMORIES_BUCKET}"
    ask = json.dumps({"marker": marker, "seq": 1}).encode()
    reindex = admin_pb2.ReindexMemories(job_id=marker).SerializeToString()
    return [
        Attack(
            "forge an upstream note",
            (Attempt("pub", note, _forged_note(victim, marker)),),
            stored=((streams.LOG_STREAM, note),),
        ),
        Attack(
            "forge a pinned SaveMemory by the CEO",
            (Attempt("pub", save, _forged_save(marker)),),
            stored=((streams.LOG_STREAM, save),),
        ),
        Attack(
            "write a token digest into the token bucket",
            (Attempt("pub", f"$KV.{streams.TOKENS_BUCKET}.{digest}", forged_token),),
            kv_keys=((streams.TOKENS_BUCKET, digest),),
        ),
        Attack(
            "read the record",
            (
                Attempt(
                    "req",
                    f"{JS}.DIRECT.GET.{records}.$KV.{streams.MEMORIES_BUCKET}.{record_key}",
                    ask,
                ),  # fmt: skip
                Attempt("req", f"{JS}.STREAM.MSG.GET.{records}", ask),
                Attempt("req", f"{JS}.CONSUMER.CREATE.{records}", ask),
                Attempt("sub", f"$KV.{streams.MEMORIES_BUCKET}.>"),
            ),
        ),
        Attack(
            "sniff commands and events",
            (
                Attempt("sub", subjects.any_workspace(subjects.SAVE_MEMORY)),
                Attempt("sub", subjects.ALL_MEMORY_EVENTS),
                Attempt("sub", ">"),
            ),
        ),
        Attack(
            "forget a memory with a bare ForgetMemory",
            (Attempt("pub", forget, _forged_forget(victim, record_key.split(".")[1], marker)),),
            stored=((streams.LOG_STREAM, forget),),
        ),
        Attack(
            "ask for a reindex",
            (Attempt("req", subjects.REINDEX_MEMORIES, reindex),),
        ),
    ]


def every_subject_and_bucket(workspaces: tuple[str, ...], marker: str) -> list[Attempt]:
    """Publishes on every subject root (bare, and for each workspace at every depth the
    subjects use), subscriptions to each, writes and watches of every bucket, and the
    JetStream API on every stream: none of it is a hook's, except its own upstream events."""
    payload = json.dumps({"marker": marker}).encode()
    attempts: list[Attempt] = []
    for root in SUBJECT_ROOTS:
        for ws in workspaces:
            for middle in ("", "x.", "x.y."):  # memhive.audit.<action>.<ws>, upstream.<n>.<v>.<ws>
                attempts.append(Attempt("pub", f"{root}.{middle}{ws}", payload))
        attempts += [
            Attempt("pub", root, payload),
            Attempt("sub", root),
            Attempt("sub", f"{root}.>"),
        ]
    for bucket in BUCKETS:
        for ws in workspaces:
            attempts.append(Attempt("pub", f"$KV.{bucket}.{ws}.{marker}", payload))
        attempts.append(Attempt("sub", f"$KV.{bucket}.>"))
    for stream in STREAM_NAMES:
        attempts += [Attempt("pub", f"{JS}.{api}.{stream}", payload) for api in _STREAM_API]
        attempts += [
            Attempt("pub", f"{JS}.DIRECT.GET.{stream}.{marker}", payload),
            Attempt("pub", f"{JS}.CONSUMER.CREATE.{stream}.{marker}", payload),
            Attempt("pub", f"{JS}.CONSUMER.DURABLE.CREATE.{stream}.{marker}", payload),
            Attempt("pub", f"$JS.ACK.{stream}.{marker}.1.1.1.1.0", payload),
            Attempt("pub", f"$JS.FC.{stream}.{marker}", payload),
        ]
    attempts += [Attempt("pub", f"{JS}.{api}", payload) for api in _ACCOUNT_API]
    attempts += [Attempt("pub", f"{JS}.STREAM.CREATE.{marker}", payload)]
    attempts += [Attempt("sub", s) for s in (">", "$JS.>", "$KV.>", "_INBOX.>", "memhive.>")]
    attempts += [Attempt("sub", f"{inbox_prefix(user)}.>") for user in BUS_USERS]
    return attempts


_STREAM_API = (
    "STREAM.INFO",
    "STREAM.MSG.GET",
    "DIRECT.GET",
    "CONSUMER.CREATE",
    "STREAM.UPDATE",
    "STREAM.PURGE",
    "STREAM.DELETE",
    "STREAM.MSG.DELETE",
    "CONSUMER.LIST",
    "CONSUMER.NAMES",
)
_ACCOUNT_API = ("INFO", "STREAM.LIST", "STREAM.NAMES")


def raw_protocol(attempts: tuple[Attempt, ...] | list[Attempt]) -> bytes:
    """The attempts as NATS protocol lines, pipelined after a CONNECT without credentials."""
    lines = [b'CONNECT {"verbose":false,"pedantic":false,"protocol":1}\r\n']
    for sid, attempt in enumerate(attempts, 1):
        subject = attempt.subject.encode()
        if attempt.kind == "sub":
            lines.append(b"SUB %s %d\r\n" % (subject, sid))
        else:
            reply = b" _INBOX.raw.%d" % sid if attempt.kind == "req" else b""
            size = len(attempt.payload)
            lines.append(b"PUB %s%s %d\r\n%s\r\n" % (subject, reply, size, attempt.payload))
    return b"".join([*lines, b"PING\r\n"])
