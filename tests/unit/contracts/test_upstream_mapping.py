"""Upstream protobuf messages map to domain events, or are refused naming every field to fix."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from memhive.v1 import upstream_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, encode
from memhive_contracts.upstream_mapping import (
    UPSTREAM_MESSAGE_TYPES,
    upstream_event_from_pb,
    upstream_event_from_wire,
)
from memhive_domain.errors import InvalidInput
from memhive_domain.upstream import (
    CommentCreated,
    IssueCreated,
    IssueUpdated,
    JobCompleted,
    JobOutcome,
    KeyFile,
    KnowledgeSnapshot,
    NoteAdded,
    Procedure,
    ResolvedError,
    memories_from,
)

WHEN = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)


def stamp(moment: datetime = WHEN) -> Timestamp:
    value = Timestamp()
    value.FromDatetime(moment)
    return value


def issue_pb(message_type: type = pb.IssueCreated, **fields: object):
    values = dict(
        event_id="evt-1",
        workspace_id="acme",
        issue_id="PROJ-12",
        title="Login fails",
        description="It **fails**.",
        status="open",
        labels=["Bug"],
        product_id="web",
        author="jane",
        occurred_at=stamp(),
    )
    values.update(fields)
    return message_type(**values)


def job_pb(**fields: object) -> pb.JobCompleted:
    values = dict(
        event_id="evt-j",
        workspace_id="acme",
        job_id="J-7",
        outcome=pb.JOB_OUTCOME_SUCCEEDED,
        stdout_excerpt="ok",
        session=pb.SessionContext(
            decisions=["Use uv"],
            resolved_errors=[pb.ResolvedError(error="E1", resolution="R1")],
            files_modified=["a.py"],
        ),
        author="agent-7",
        occurred_at=stamp(),
    )
    values.update(fields)
    return pb.JobCompleted(**values)


def problems_of(message: object, **kwargs: object) -> dict[str, str]:
    with pytest.raises(InvalidInput) as caught:
        upstream_event_from_pb(message, **kwargs)  # type: ignore[arg-type]
    return {p.field: p.message for p in caught.value.problems}


def test_every_upstream_subject_has_its_message_type() -> None:
    assert {
        subjects.ISSUE_CREATED: pb.IssueCreated,
        subjects.ISSUE_UPDATED: pb.IssueUpdated,
        subjects.COMMENT_CREATED: pb.CommentCreated,
        subjects.JOB_COMPLETED: pb.JobCompleted,
        subjects.NOTE_ADDED: pb.NoteAdded,
        subjects.KNOWLEDGE_SNAPSHOT: pb.KnowledgeSnapshot,
    } == UPSTREAM_MESSAGE_TYPES


@pytest.mark.parametrize("message_type", [pb.IssueCreated, pb.IssueUpdated])
def test_an_issue_maps_field_by_field(message_type: type) -> None:
    event = upstream_event_from_pb(issue_pb(message_type))
    expected_type = IssueCreated if message_type is pb.IssueCreated else IssueUpdated
    assert type(event) is expected_type
    assert event == expected_type(
        event_id="evt-1",
        workspace_id="acme",
        issue_id="PROJ-12",
        title="Login fails",
        description="It **fails**.",
        status="open",
        labels=("Bug",),
        product_id="web",
        author="jane",
        occurred_at=WHEN,
    )


def test_an_empty_product_means_none() -> None:
    assert upstream_event_from_pb(issue_pb(product_id="")).product_id is None


def test_a_comment_maps() -> None:
    message = pb.CommentCreated(
        event_id="evt-c",
        workspace_id="acme",
        comment_id="c-1",
        issue_id="PROJ-12",
        body="Looks good",
        author="bob",
        occurred_at=stamp(),
    )
    assert upstream_event_from_pb(message) == CommentCreated(
        "evt-c", "acme", "c-1", "PROJ-12", "Looks good", "bob", None, WHEN
    )


@pytest.mark.parametrize(
    ("wire", "outcome"),
    [
        (pb.JOB_OUTCOME_SUCCEEDED, JobOutcome.SUCCEEDED),
        (pb.JOB_OUTCOME_FAILED, JobOutcome.FAILED),
        (pb.JOB_OUTCOME_CANCELLED, JobOutcome.CANCELLED),
    ],
)
def test_a_job_maps_with_its_outcome_and_session(wire: int, outcome: JobOutcome) -> None:
    event = upstream_event_from_pb(job_pb(outcome=wire))
    assert isinstance(event, JobCompleted)
    assert (event.job_id, event.outcome, event.stdout_excerpt) == ("J-7", outcome, "ok")
    assert event.session.decisions == ("Use uv",)
    assert event.session.resolved_errors == (ResolvedError("E1", "R1"),)
    assert event.session.files_modified == ("a.py",)


def test_a_job_without_session_has_an_empty_one() -> None:
    message = job_pb()
    message.ClearField("session")
    event = upstream_event_from_pb(message)
    assert isinstance(event, JobCompleted)
    assert event.session.decisions == event.session.files_modified == ()


def test_a_note_maps() -> None:
    message = pb.NoteAdded(
        event_id="evt-n",
        workspace_id="acme",
        note_id="n-1",
        title="T",
        body="B",
        tags=["x", "y"],
        product_id="web",
        author="ops",
        occurred_at=stamp(),
    )
    assert upstream_event_from_pb(message) == NoteAdded(
        "evt-n", "acme", "n-1", "T", "B", ("x", "y"), "web", "ops", WHEN
    )


def test_a_knowledge_snapshot_maps() -> None:
    message = pb.KnowledgeSnapshot(
        event_id="evt-k",
        workspace_id="acme",
        snapshot_id="s-1",
        architecture_notes=["A"],
        key_files=[pb.KeyFile(path="Makefile", purpose="targets")],
        conventions=["C"],
        procedures=[pb.Procedure(title="Release", steps=["tag", "push"])],
        occurred_at=stamp(),
        author="scanner",
    )
    assert upstream_event_from_pb(message) == KnowledgeSnapshot(
        event_id="evt-k",
        workspace_id="acme",
        snapshot_id="s-1",
        product_id=None,
        architecture_notes=("A",),
        key_files=(KeyFile("Makefile", "targets"),),
        conventions=("C",),
        procedures=(Procedure("Release", ("tag", "push")),),
        occurred_at=WHEN,
        author="scanner",
    )


def test_from_the_wire_decodes_by_subject_and_checks_the_workspace() -> None:
    subject = subjects.for_workspace(subjects.ISSUE_UPDATED, "acme")
    event = upstream_event_from_wire(subject, encode(issue_pb(pb.IssueUpdated)))
    assert isinstance(event, IssueUpdated)
    assert [m.source_ref for m in memories_from(event)] == ["issue:PROJ-12"]


def test_a_workspace_other_than_the_subjects_is_refused() -> None:
    subject = subjects.for_workspace(subjects.ISSUE_CREATED, "other")
    with pytest.raises(InvalidInput) as caught:
        upstream_event_from_wire(subject, encode(issue_pb()))
    (problem,) = caught.value.problems
    assert problem.field == "workspace_id"
    assert "'other'" in problem.message


def test_an_unknown_subject_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(InvalidInput) as caught:
        upstream_event_from_wire("memhive.upstream.issue.deleted.acme", encode(issue_pb()))
    (problem,) = caught.value.problems
    assert problem.field == "subject"
    assert subjects.ISSUE_CREATED in problem.message


def test_garbage_bytes_are_undecodable() -> None:
    subject = subjects.for_workspace(subjects.JOB_COMPLETED, "acme")
    with pytest.raises(UndecodableMessage):
        upstream_event_from_wire(subject, b"\xff\xff\xff")


def test_an_empty_issue_lists_every_missing_field() -> None:
    problems = problems_of(pb.IssueCreated())
    assert set(problems) == {"event_id", "workspace_id", "issue_id", "title", "occurred_at"}
    assert "orders updates" in problems["occurred_at"]


def test_bad_workspace_and_product_ids_say_what_is_allowed() -> None:
    problems = problems_of(issue_pb(workspace_id="ACME Corp", product_id="web app"))
    assert set(problems) == {"workspace_id", "product_id"}
    assert "lowercase" in problems["workspace_id"]
    assert "omit it for global" in problems["product_id"]


def test_over_long_ids_are_refused() -> None:
    problems = problems_of(issue_pb(issue_id="x" * 201))
    assert problems == {"issue_id": "is 201 characters; the maximum is 200"}


def test_blank_ids_are_missing_ids() -> None:
    assert problems_of(issue_pb(issue_id="   ")) == {"issue_id": "is required"}


def test_a_comment_needs_its_issue() -> None:
    message = pb.CommentCreated(event_id="e", workspace_id="acme", occurred_at=stamp())
    assert set(problems_of(message)) == {"comment_id", "issue_id"}


@pytest.mark.parametrize("outcome", [pb.JOB_OUTCOME_UNSPECIFIED, 42])
def test_a_job_needs_a_known_outcome(outcome: int) -> None:
    problems = problems_of(job_pb(outcome=outcome))
    assert list(problems) == ["outcome"]
    assert f"unknown value {outcome}" in problems["outcome"]
    assert "JOB_OUTCOME_SUCCEEDED" in problems["outcome"]


def test_a_note_needs_a_title_or_a_body() -> None:
    message = pb.NoteAdded(event_id="e", workspace_id="acme", note_id="n", occurred_at=stamp())
    assert list(problems_of(message)) == ["body"]


def test_a_key_file_needs_a_path() -> None:
    message = pb.KnowledgeSnapshot(
        event_id="e",
        workspace_id="acme",
        snapshot_id="s",
        key_files=[pb.KeyFile(path="ok.py"), pb.KeyFile(path=" ", purpose="?")],
        occurred_at=stamp(),
    )
    assert list(problems_of(message)) == ["key_files[1].path"]


def test_a_message_that_is_not_an_upstream_event_is_refused() -> None:
    assert list(problems_of(pb.KeyFile(path="x"))) == ["message"]


@pytest.mark.parametrize(
    ("seconds", "nanos"),
    [(253402300800, 0), (-62135596801, 0), (2**62, 0), (0, -1), (0, 1_000_000_000)],
)
def test_an_occurred_at_no_datetime_can_hold_is_refused_naming_it(seconds: int, nanos: int) -> None:
    problems = problems_of(issue_pb(occurred_at=Timestamp(seconds=seconds, nanos=nanos)))
    assert list(problems) == ["occurred_at"]
    assert f"seconds {seconds}, nanos {nanos} is not a moment" in problems["occurred_at"]


def test_the_first_and_last_moments_a_timestamp_holds_are_taken() -> None:
    for seconds, nanos in [(-62135596800, 0), (253402300799, 999_999_999)]:
        event = upstream_event_from_pb(
            issue_pb(occurred_at=Timestamp(seconds=seconds, nanos=nanos))
        )
        assert event.occurred_at.year in (1, 9999)
