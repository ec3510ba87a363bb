"""Upstream events over the real bus: a realistic burst lands exactly, replays change nothing,
an issue is recallable moments later, bad events are dead-lettered, listed and replayed, and
every change of meaning shows in the revision history."""

from __future__ import annotations

import argparse
import asyncio
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from memhive.v1 import upstream_pb2 as pb
from memhive_contracts import streams, subjects
from memhive_contracts.upstream_mapping import upstream_event_from_pb
from memhive_domain.upstream import memories_from, upstream_memory_id

from memhive_cli.dead_letters import _do_list, _do_replay
from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
# Event ids start with the workspace id: the stream drops a repeated Nats-Msg-Id for 15
# minutes whatever the subject, and every test shares one stream.


def _at(message: Message, minutes: float) -> Message:
    message.occurred_at.FromDatetime(T0 + timedelta(minutes=minutes))
    return message


def issue(ws: str, n: int, minutes: float, status: str, *, created: bool = False) -> Message:
    cls = pb.IssueCreated if created else pb.IssueUpdated
    return _at(
        cls(
            event_id=f"{ws}:issue-{n}-{status}",
            workspace_id=ws,
            issue_id=f"PROJ-{n}",
            title=f"Checkout step {n} times out under load",
            description=f"The **payment** call {n} exceeds its 5 s budget.",
            status=status,
            labels=["Bug", f"Area {n % 4}"],
            product_id="shop",
            author="jane",
        ),
        minutes,
    )


def comment(ws: str, n: int, minutes: float) -> Message:
    return _at(
        pb.CommentCreated(
            event_id=f"{ws}:comment-{n}",
            workspace_id=ws,
            comment_id=f"c-{n}",
            issue_id=f"PROJ-{n % 60}",
            body=f"Reproduced with _{n}_ concurrent users on staging.",
            author="sam",
            product_id="shop",
        ),
        minutes,
    )


def job(ws: str, n: int, minutes: float) -> Message:
    session = pb.SessionContext(
        decisions=[f"Retry payment call {n} with jittered backoff", f"Cap the pool at {n + 4}"],
        resolved_errors=[pb.ResolvedError(error=f"TimeoutError in step {n}", resolution="bumped")],
        files_modified=[f"shop/checkout_{n}.py"],
    )
    return _at(
        pb.JobCompleted(
            event_id=f"{ws}:job-{n}",
            workspace_id=ws,
            job_id=f"J-{n}",
            outcome=pb.JOB_OUTCOME_SUCCEEDED,
            stdout_excerpt=f"{n} passed",
            session=session,
            author="agent-7",
        ),
        minutes,
    )


async def publish(stack: Stack, message: Message, msg_id: str | None = None) -> None:
    prefix = {
        pb.IssueCreated: subjects.ISSUE_CREATED,
        pb.IssueUpdated: subjects.ISSUE_UPDATED,
        pb.CommentCreated: subjects.COMMENT_CREATED,
        pb.JobCompleted: subjects.JOB_COMPLETED,
        pb.KnowledgeSnapshot: subjects.KNOWLEDGE_SNAPSHOT,
    }[type(message)]
    subject = subjects.for_workspace(prefix, message.workspace_id)
    headers = {streams.MSG_ID_HEADER: msg_id or message.event_id}
    await stack.infra.js.publish(subject, message.SerializeToString(), headers=headers)


@dataclass
class Expected:
    """What the record must hold per memory: an independent model of the revision rules."""

    bodies: dict[str, list[str]] = field(default_factory=dict)  # every revision's body
    updated: dict[str, datetime] = field(default_factory=dict)

    def apply(self, message: Message) -> None:
        for incoming in memories_from(upstream_event_from_pb(message)):
            mid, body, when = incoming.memory_id, incoming.draft.body, incoming.occurred_at
            history = self.bodies.setdefault(mid, [])
            if history and (history[-1] == body or when < self.updated[mid]):
                continue  # unchanged (a replay) or stale (an older update, late)
            history.append(body)
            self.updated[mid] = max(when, self.updated.get(mid, when))


async def wait_for(predicate, timeout_s: float = 180):
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        if result := await predicate():
            return result
        await asyncio.sleep(0.2)
    raise AssertionError("condition not reached")


async def listed_ids(workspace: Workspace) -> list[str]:
    ids, cursor = [], None
    while True:
        params = {"limit": 100} | ({"cursor": cursor} if cursor else {})
        page = (await workspace.member.get("/v1/memories", params=params)).json()
        ids += [m["id"] for m in page["items"]]
        if not (cursor := page["next_cursor"]):
            return ids


def burst(ws: str) -> list[tuple[Message, str]]:
    """~420 events with the msg id each is published under: issues created and updated
    (a third of the updates out of order), comments, jobs, exact duplicates (same msg id)
    and redeliveries (same event, new msg id, as after the duplicate window)."""
    rng = random.Random(6)
    events: list[tuple[Message, str]] = []
    for n in range(60):
        created = issue(ws, n, n, "open", created=True)
        triaged, fixed = issue(ws, n, n + 100, "triaged"), issue(ws, n, n + 200, "fixed")
        updates = [fixed, triaged] if n % 3 == 0 else [triaged, fixed]
        if n % 10 == 0:
            updates = [fixed, created, triaged]  # the newest first: the others are stale
            created = None
        events += [(e, e.event_id) for e in ([created] if created else []) + updates]
    events += [(comment(ws, n, 300 + n), f"{ws}:comment-{n}") for n in range(150)]
    events += [(job(ws, n, 500 + n), f"{ws}:job-{n}") for n in range(40)]
    rng.shuffle(tail := events[180:])
    events = events[:180] + tail
    duplicates = [(m, i) for m, i in rng.sample(events, 30)]
    redeliveries = [(m, f"redelivery-{uuid.uuid4()}") for m, _ in rng.sample(events, 30)]
    return events + duplicates + redeliveries


async def test_a_burst_of_upstream_events_lands_exactly(stack: Stack, workspace: Workspace) -> None:
    expected = Expected()
    for message, msg_id in burst(workspace.id):
        await publish(stack, message, msg_id)
        expected.apply(message)
    assert len(expected.bodies) == 60 + 150 + 40 * 4

    async def all_settled():
        found = await stack.infra.store.get_many(workspace.id, list(expected.bodies))
        settled = len(found) == len(expected.bodies) and all(
            found[m].memory.revision == len(b) for m, b in expected.bodies.items()
        )
        return settled and len(await listed_ids(workspace)) == len(expected.bodies)

    await wait_for(all_settled)
    assert sorted(await listed_ids(workspace)) == sorted(expected.bodies)  # one memory each
    records = await stack.infra.store.get_many(workspace.id, list(expected.bodies))
    for memory_id, bodies in expected.bodies.items():
        assert records[memory_id].memory.body == bodies[-1]
    revised = [m for m, b in expected.bodies.items() if len(b) > 1]
    assert len(revised) == 60 - 6  # the issues whose newest update came first never revise
    for memory_id in revised:
        response = await workspace.member.get(f"/v1/memories/{memory_id}/revisions")
        history = response.json()["revisions"]
        assert [r["body"] for r in history] == expected.bodies[memory_id]
        assert [r["revision"] for r in history] == list(range(1, len(history) + 1))
        assert {r["command_id"].split(":")[0] for r in history} == {"upstream"}


async def test_the_same_event_twice_is_one_memory_recallable_moments_later(
    stack: Stack, workspace: Workspace
) -> None:
    event = issue(workspace.id, 7, 0, "open", created=True)
    event.title, event.description = "Invoices render blank in Firefox", "PDF preview is empty."
    await publish(stack, event)
    await publish(stack, event, f"{workspace.id}:re-sent")
    memory_id = upstream_memory_id(workspace.id, "issue:PROJ-7")

    async def recalled():
        return await recall_ids(workspace.member, "blank invoice PDF in Firefox")

    assert (await wait_for(recalled))[0] == memory_id
    # The vector lane may answer before the lexical one (listing reads it) has committed.
    assert await wait_for(lambda: listed_ids(workspace)) == [memory_id]
    revisions = (await workspace.member.get(f"/v1/memories/{memory_id}/revisions")).json()
    assert [(r["revision"], r["change"]) for r in revisions["revisions"]] == [(1, "saved")]


async def test_a_shorter_knowledge_snapshot_forgets_what_it_no_longer_says(
    stack: Stack, workspace: Workspace
) -> None:
    def snapshot(event_id: str, minutes: float, notes: list[str]) -> Message:
        return _at(
            pb.KnowledgeSnapshot(
                event_id=f"{workspace.id}:{event_id}",
                workspace_id=workspace.id,
                snapshot_id=event_id,
                product_id="shop",
                architecture_notes=notes,
            ),
            minutes,
        )

    await publish(stack, snapshot("k1", 0, ["Orders flow through NATS", "Carts live in Redis"]))
    await publish(stack, snapshot("k2", 5, ["Orders flow through NATS"]))
    kept, dropped = (
        upstream_memory_id(workspace.id, f"knowledge:product:shop:architecture:{n}") for n in (1, 2)
    )

    async def only_kept_listed():
        return await listed_ids(workspace) == [kept]

    await wait_for(only_kept_listed)
    assert dropped not in await recall_ids(workspace.member, "where do carts live? Redis")
    history = (await workspace.member.get(f"/v1/memories/{dropped}/revisions")).json()
    assert [
        (r["revision"], r["change"], r["forgotten"], r["command_id"]) for r in history["revisions"]
    ] == [
        (1, "saved", False, f"upstream:{workspace.id}:k1"),
        (2, "forgotten", True, f"upstream:{workspace.id}:k2"),
    ]


async def test_bad_events_are_dead_lettered_listed_and_do_not_block(
    stack: Stack, workspace: Workspace
) -> None:
    bad = job(workspace.id, 1, 0)
    bad.outcome = pb.JOB_OUTCOME_UNSPECIFIED
    await publish(stack, bad)
    subject = subjects.for_workspace(subjects.NOTE_ADDED, workspace.id)
    await stack.infra.js.publish(
        subject, b"\xff not protobuf", headers={"Nats-Msg-Id": f"{workspace.id}:junk"}
    )
    good = issue(workspace.id, 3, 0, "open", created=True)
    await publish(stack, good)

    async def good_one_listed():
        return await listed_ids(workspace) == [upstream_memory_id(workspace.id, "issue:PROJ-3")]

    await wait_for(good_one_listed)

    async def two_letters():
        response = await workspace.member.get("/v1/admin/dead-letters")
        items = response.json()["items"]
        return items if len(items) == 2 else None

    letters = await wait_for(two_letters)
    # Newest first.
    assert [d["subject"].rsplit(".", 2)[-2] for d in letters] == ["added", "completed"]
    assert {d["consumer"] for d in letters} == {"ingest-upstream"}
    assert "outcome: unknown value 0" in letters[1]["reason"]
    assert "memhive.v1.NoteAdded" in letters[0]["reason"]
    assert (await workspace.reader.get("/v1/admin/dead-letters")).status_code == 403
    other = stack.client(await stack.token(f"ws-{uuid.uuid4().hex[:12]}"))
    async with other:
        assert (await other.get("/v1/admin/dead-letters")).json() == {"items": []}


async def test_an_event_of_a_moment_past_year_9999_is_dead_lettered_at_once_naming_it(
    stack: Stack, workspace: Workspace
) -> None:
    """A Timestamp protobuf can carry but no datetime can hold was a ValueError: retried
    as if transient, then dead-lettered as "gave up after 5 deliveries" naming no field."""
    beyond = issue(workspace.id, 4, 0, "open", created=True)
    beyond.occurred_at.seconds = 253402300800  # 10000-01-01T00:00:00Z
    await publish(stack, beyond)

    async def one_letter():
        response = await workspace.member.get("/v1/admin/dead-letters")
        return response.json()["items"] or None

    (letter,) = await wait_for(one_letter)
    assert "occurred_at: seconds 253402300800, nanos 0 is not a moment" in letter["reason"]
    assert "gave up" not in letter["reason"]  # poison at its first delivery
    assert await listed_ids(workspace) == []


async def test_a_dead_letter_is_replayed_after_the_fault_is_fixed(
    stack: Stack, workspace: Workspace, bus_env: None, capsys
) -> None:
    # As if ingest gave up on a valid event during an outage (say, the record was down).
    event = issue(workspace.id, 9, 0, "open", created=True)
    origin = subjects.for_workspace(subjects.ISSUE_CREATED, workspace.id)
    headers = {
        streams.DLQ_REASON_HEADER: "gave up after 5 deliveries: TimeoutError: record unavailable",
        streams.DLQ_SUBJECT_HEADER: origin,
        streams.DLQ_CONSUMER_HEADER: "ingest-upstream",
        streams.DLQ_DELIVERIES_HEADER: "5",
        streams.MSG_ID_HEADER: f"outage-{workspace.id}",
    }
    ack = await stack.infra.js.publish(
        subjects.dead_letter("ingest-upstream"), event.SerializeToString(), headers=headers
    )
    assert await _do_list(argparse.Namespace(consumer="ingest-upstream", limit=10_000)) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if origin in line)
    assert row.split()[0] == str(ack.seq) and row.endswith("record unavailable")

    assert await _do_replay(argparse.Namespace(sequence=ack.seq)) == 0
    memory_id = upstream_memory_id(workspace.id, "issue:PROJ-9")

    async def listed():
        return await listed_ids(workspace) == [memory_id]

    await wait_for(listed)
    listing = (await workspace.member.get("/v1/admin/dead-letters")).json()["items"]
    assert listing == []
    assert await _do_replay(argparse.Namespace(sequence=ack.seq)) == 1  # gone once replayed


async def test_revisions_of_a_gateway_save_and_forget(stack: Stack, workspace: Workspace) -> None:
    saved = await save(
        workspace.member,
        kind="fact",
        body="Builds run on Buildkite",
        tags=["ci"],
        visibility="private",
    )
    memory_id = saved["id"]
    assert (await workspace.reader.get(f"/v1/memories/{memory_id}/revisions")).status_code == 404
    forgotten = await workspace.member.delete(f"/v1/memories/{memory_id}?wait=indexed")
    assert forgotten.json()["status"] == "forgotten"

    history = (await workspace.member.get(f"/v1/memories/{memory_id}/revisions")).json()
    rows = [
        (r["revision"], r["change"], r["forgotten"], r["body"], r["tags"], r["kind"])
        for r in history["revisions"]
    ]
    assert rows == [
        (1, "saved", False, "Builds run on Buildkite", ["ci"], "fact"),
        (2, "forgotten", True, "Builds run on Buildkite", ["ci"], "fact"),
    ]
    assert history["revisions"][0]["updated_at"] == saved["memory"]["updated_at"]
    other = stack.client(await stack.token(f"ws-{uuid.uuid4().hex[:12]}"))
    async with other:
        assert (await other.get(f"/v1/memories/{memory_id}/revisions")).status_code == 404
    assert (await workspace.member.get("/v1/memories/not-an-id/revisions")).status_code == 404
