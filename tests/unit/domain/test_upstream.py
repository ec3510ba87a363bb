"""Upstream events become keyed memories; revision rules make replays and late updates harmless."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.markdown_text import ELLIPSIS
from memhive_domain.memory import MAX_BODY_CHARS, MAX_TAGS, record_access
from memhive_domain.scopes import Scope
from memhive_domain.sources import Source
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
    SessionContext,
    UpstreamMemory,
    apply_revision,
    create_upstream_memory,
    memories_from,
    revision_decision,
    tags_from_labels,
    upstream_memory_id,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


def issue(cls: type[IssueCreated] | type[IssueUpdated] = IssueCreated, **changes: object):
    base = cls(
        event_id="evt-1",
        workspace_id="acme",
        issue_id="PROJ-12",
        title="Login fails on **Safari**",
        description="The `session` cookie is dropped.\n\nSee [the log](https://x.io/l).",
        status="open",
        labels=("Bug", "Good first issue"),
        product_id="web",
        author="jane",
        occurred_at=T0,
    )
    return replace(base, **changes)


def job(**changes: object) -> JobCompleted:
    base = JobCompleted(
        event_id="evt-j",
        workspace_id="acme",
        job_id="J-7",
        outcome=JobOutcome.FAILED,
        stdout_excerpt="collected 12 items\n\n  1 failed",
        session=SessionContext(
            decisions=("Use **uv** for installs", "  ", "Pin protobuf to 7.x"),
            resolved_errors=(
                ResolvedError("ImportError: no module `foo`", "added foo to the workspace"),
                ResolvedError("Flaky test", ""),
            ),
            files_modified=("src/pkg/__init__.py", "pyproject.toml"),
        ),
        product_id=None,
        author="agent-7",
        occurred_at=T0,
    )
    return replace(base, **changes)


def snapshot(**changes: object) -> KnowledgeSnapshot:
    base = KnowledgeSnapshot(
        event_id="evt-k",
        workspace_id="acme",
        snapshot_id="snap-1",
        product_id="web",
        architecture_notes=("The gateway talks to *NATS* only.", "Qdrant is a projection."),
        key_files=(KeyFile("src/app/__init__.py", "the app factory"), KeyFile("Makefile", "")),
        conventions=("Tests live in `tests/<tier>`.",),
        procedures=(Procedure("Release", ("Bump the **version**", "", "Tag and push")),),
        occurred_at=T0,
    )
    return replace(base, **changes)


def only(event: object) -> UpstreamMemory:
    (memory,) = memories_from(event)  # type: ignore[arg-type]
    return memory


# --- ids -------------------------------------------------------------------------------------


def test_the_same_source_ref_always_maps_to_the_same_memory_id() -> None:
    first, again = only(issue()), only(issue(IssueUpdated, event_id="evt-2", title="Other"))
    assert first.memory_id == again.memory_id == upstream_memory_id("acme", "issue:PROJ-12")
    assert uuid.UUID(first.memory_id).version == 5


def test_memory_ids_differ_by_workspace_and_by_source_ref() -> None:
    ids = {
        upstream_memory_id("acme", "issue:PROJ-12"),
        upstream_memory_id("other", "issue:PROJ-12"),
        upstream_memory_id("acme", "issue:PROJ-13"),
        upstream_memory_id("acme", "comment:PROJ-12"),
    }
    assert len(ids) == 4


# --- issues and comments ---------------------------------------------------------------------


def test_an_issue_becomes_one_plain_text_observation() -> None:
    memory = only(issue())
    draft = memory.draft
    assert draft.body == (
        "Issue PROJ-12: Login fails on Safari — open. The session cookie is dropped.\nSee the log."
    )
    assert (draft.kind, draft.source, draft.source_ref) == (
        MemoryKind.OBSERVATION,
        Source.ISSUE,
        "issue:PROJ-12",
    )
    assert draft.tags == ("bug", "good-first-issue")
    assert (draft.scope, draft.product_id) == (Scope.PRODUCT, "web")
    assert (memory.workspace_id, memory.event_id, memory.author) == ("acme", "evt-1", "jane")
    assert memory.occurred_at == T0


def test_an_issue_without_product_or_status_is_global_and_reads_as_a_sentence() -> None:
    draft = only(issue(product_id=None, status="", description="")).draft
    assert draft.body == "Issue PROJ-12: Login fails on Safari."
    assert (draft.scope, draft.product_id) == (Scope.GLOBAL, None)


def test_an_issue_with_nothing_to_say_makes_no_memory() -> None:
    assert memories_from(issue(title="  ", description="<!-- template -->")) == []


def test_labels_are_made_into_valid_tags() -> None:
    labels = ["Bug", "bug", "P1: High", "  area/UI ", "🐛", "-x-", "a" * 80]
    tags = tags_from_labels(labels)
    assert tags == ("bug", "p1:-high", "area/ui", "x", "a" * 64)


def test_tags_are_capped() -> None:
    assert len(tags_from_labels(f"label-{n}" for n in range(MAX_TAGS + 5))) == MAX_TAGS


def test_a_comment_becomes_an_observation_naming_its_issue_and_author() -> None:
    comment = CommentCreated(
        event_id="evt-c",
        workspace_id="acme",
        comment_id="c-99",
        issue_id="PROJ-12",
        body="> quoted\n\nFixed by *clearing* the cache.",
        author="bob",
        product_id=None,
        occurred_at=T0,
    )
    draft = only(comment).draft
    assert draft.body == "Comment on issue PROJ-12 by bob: quoted\nFixed by clearing the cache."
    assert (draft.kind, draft.source, draft.source_ref) == (
        MemoryKind.OBSERVATION,
        Source.COMMENT,
        "comment:c-99",
    )
    assert memories_from(replace(comment, body="  ")) == []


# --- jobs ------------------------------------------------------------------------------------


def test_a_job_becomes_decisions_resolved_errors_and_a_summary() -> None:
    memories = memories_from(job())
    got = [(m.source_ref, m.draft.kind, m.draft.body) for m in memories]
    assert got == [
        ("job:J-7:decision:1", MemoryKind.DECISION, "Use uv for installs"),
        ("job:J-7:decision:3", MemoryKind.DECISION, "Pin protobuf to 7.x"),
        (
            "job:J-7:error:1",
            MemoryKind.OBSERVATION,
            "Error: ImportError: no module foo. Resolved by: added foo to the workspace",
        ),
        ("job:J-7:error:2", MemoryKind.OBSERVATION, "Error: Flaky test."),
        (
            "job:J-7",
            MemoryKind.EVENT,
            "Job J-7 failed. Files modified: src/pkg/__init__.py, pyproject.toml. "
            "Output: collected 12 items 1 failed",
        ),
    ]
    assert {m.draft.source for m in memories} == {Source.JOB}
    assert {m.draft.scope for m in memories} == {Scope.GLOBAL}


def test_a_bare_job_still_records_its_outcome() -> None:
    bare = job(outcome=JobOutcome.CANCELLED, stdout_excerpt="", session=SessionContext())
    assert [m.draft.body for m in memories_from(bare)] == ["Job J-7 cancelled."]


def test_a_long_output_is_cut_before_the_outcome() -> None:
    summary = memories_from(job(stdout_excerpt="word " * 2000))[-1].draft.body
    assert len(summary) <= MAX_BODY_CHARS
    assert summary.startswith("Job J-7 failed. Files modified:")
    assert summary.endswith("word" + ELLIPSIS)


# --- notes and knowledge ---------------------------------------------------------------------


def test_a_note_becomes_a_fact() -> None:
    note = NoteAdded(
        event_id="evt-n",
        workspace_id="acme",
        note_id="n-1",
        title="Staging DB",
        body="Staging uses **Postgres 16**; prod is still on 15.",
        tags=("Infra", "db"),
        product_id="web",
        author="ops",
        occurred_at=T0,
    )
    draft = only(note).draft
    assert draft.body == "Staging DB\nStaging uses Postgres 16; prod is still on 15."
    assert (draft.kind, draft.source, draft.source_ref) == (
        MemoryKind.FACT,
        Source.NOTE,
        "note:n-1",
    )
    assert draft.tags == ("infra", "db")


def test_knowledge_becomes_facts_procedures_and_a_key_file_list() -> None:
    got = [(m.source_ref, m.draft.kind, m.draft.body) for m in memories_from(snapshot())]
    assert got == [
        (
            "knowledge:product:web:architecture:1",
            MemoryKind.FACT,
            "The gateway talks to NATS only.",
        ),
        ("knowledge:product:web:architecture:2", MemoryKind.FACT, "Qdrant is a projection."),
        ("knowledge:product:web:convention:1", MemoryKind.FACT, "Tests live in tests/<tier>."),
        (
            "knowledge:product:web:procedure:1",
            MemoryKind.PROCEDURE,
            "Release\n1. Bump the version\n2. Tag and push",
        ),
        (
            "knowledge:product:web:key-files",
            MemoryKind.FACT,
            "Key files:\nsrc/app/__init__.py: the app factory\nMakefile",
        ),
    ]


def test_a_newer_snapshot_of_the_same_product_maps_to_the_same_memories() -> None:
    older = memories_from(snapshot())
    newer = memories_from(snapshot(snapshot_id="snap-2", event_id="evt-k2"))
    assert [m.memory_id for m in newer] == [m.memory_id for m in older]
    other_product = memories_from(snapshot(product_id="api"))
    assert not {m.memory_id for m in other_product} & {m.memory_id for m in older}


def test_workspace_knowledge_is_global_and_keyed_apart_from_products() -> None:
    memories = memories_from(snapshot(product_id=None, key_files=()))
    assert memories[0].source_ref == "knowledge:global:architecture:1"
    assert {m.draft.scope for m in memories} == {Scope.GLOBAL}
    assert not any(m.source_ref.endswith("key-files") for m in memories)


def test_unknown_events_are_refused() -> None:
    with pytest.raises(TypeError):
        memories_from("not an event")  # type: ignore[arg-type]


# --- creating and revising -------------------------------------------------------------------


def test_an_upstream_memory_is_created_at_the_source_time() -> None:
    memory = create_upstream_memory(only(issue()), NOW)
    assert (memory.id, memory.revision) == (only(issue()).memory_id, 1)
    assert memory.created_at == memory.updated_at == T0
    assert (memory.created_by, memory.workspace_id) == ("jane", "acme")
    assert memory.body == only(issue()).draft.body


def test_a_clock_running_ahead_is_capped_at_now() -> None:
    memory = create_upstream_memory(only(issue(occurred_at=NOW + timedelta(days=1))), NOW)
    assert memory.updated_at == NOW


def test_an_anonymous_event_is_made_by_upstream() -> None:
    assert create_upstream_memory(only(issue(author="")), NOW).created_by == "upstream"


def test_an_invalid_draft_is_refused_with_field_problems() -> None:
    with pytest.raises(InvalidInput) as caught:
        create_upstream_memory(only(issue(product_id="bad product!")), NOW)
    assert [p.field for p in caught.value.problems] == ["product_id"]


def test_nothing_stored_means_create() -> None:
    assert revision_decision(None, only(issue())) == "create"


def test_a_replay_is_unchanged() -> None:
    current = create_upstream_memory(only(issue()), NOW)
    assert revision_decision(current, only(issue(event_id="evt-again"))) == "unchanged"


def test_an_old_event_with_the_same_meaning_is_unchanged_not_stale() -> None:
    current = create_upstream_memory(only(issue()), NOW)
    older_same = only(issue(occurred_at=T0 - timedelta(hours=1)))
    assert revision_decision(current, older_same) == "unchanged"


@pytest.mark.parametrize(
    "change",
    [
        {"title": "Login fails on Safari 17"},
        {"status": "closed"},
        {"labels": ("bug",)},
        {"product_id": "mobile"},
        {"product_id": None},
    ],
)
def test_a_newer_change_of_body_tags_or_scope_is_a_revision(change: dict[str, object]) -> None:
    current = create_upstream_memory(only(issue()), NOW)
    newer = only(issue(IssueUpdated, occurred_at=T0 + timedelta(minutes=5), **change))
    assert revision_decision(current, newer) == "revise"


def test_a_change_at_the_same_moment_is_a_revision() -> None:
    current = create_upstream_memory(only(issue()), NOW)
    assert revision_decision(current, only(issue(status="closed"))) == "revise"


def test_an_out_of_order_update_is_stale_and_never_rolls_back() -> None:
    latest = only(issue(IssueUpdated, status="closed", occurred_at=T0 + timedelta(hours=2)))
    current = create_upstream_memory(only(issue()), NOW)
    current = apply_revision(current, latest, NOW)
    late = only(issue(IssueUpdated, status="in progress", occurred_at=T0 + timedelta(hours=1)))
    assert revision_decision(current, late) == "stale"


def test_a_naive_occurred_at_is_taken_as_utc() -> None:
    current = create_upstream_memory(only(issue(occurred_at=T0 + timedelta(hours=2))), NOW)
    naive_older = only(
        issue(status="closed", occurred_at=(T0 + timedelta(hours=1)).replace(tzinfo=None))
    )
    assert naive_older.occurred_at.tzinfo is UTC
    assert revision_decision(current, naive_older) == "stale"


def test_a_revision_changes_meaning_and_keeps_identity_and_history() -> None:
    created = create_upstream_memory(only(issue()), NOW)
    accessed = record_access(created, hits=3, last_at=NOW)
    later = T0 + timedelta(hours=3)
    incoming = only(issue(IssueUpdated, status="closed", labels=("bug",), occurred_at=later))
    revised = apply_revision(accessed, incoming, NOW)
    assert revised.body.startswith("Issue PROJ-12: Login fails on Safari — closed.")
    assert revised.tags == ("bug",)
    assert (revised.revision, revised.updated_at) == (2, later)
    assert (revised.id, revised.created_at, revised.created_by) == (created.id, T0, "jane")
    assert (revised.access_count, revised.last_accessed_at) == (3, NOW)
    assert revision_decision(revised, incoming) == "unchanged"


def test_a_revision_moves_scope_with_the_product() -> None:
    created = create_upstream_memory(only(issue()), NOW)
    revised = apply_revision(created, only(issue(product_id=None)), NOW)
    assert (revised.scope, revised.product_id) == (Scope.GLOBAL, None)


def test_a_revision_keeps_a_tuned_importance_unless_the_kind_changes() -> None:
    created = replace(create_upstream_memory(only(issue()), NOW), importance=0.95)
    assert apply_revision(created, only(issue(status="closed")), NOW).importance == 0.95
    as_fact = replace(created, kind=MemoryKind.FACT)
    assert apply_revision(as_fact, only(issue()), NOW).importance == pytest.approx(0.4)


def test_a_revision_of_a_forgotten_memory_stays_forgotten() -> None:
    created = create_upstream_memory(only(issue()), NOW)
    forgotten = replace(created, forgotten=True, forgotten_at=T0)
    assert apply_revision(forgotten, only(issue(status="closed")), NOW).forgotten
