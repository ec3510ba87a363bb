"""Every NATS subject memhive uses, in one place. The workspace id is always the last token,
so consumers and replays can select one workspace with a subject filter."""

from __future__ import annotations

SAVE_MEMORY = "memhive.cmd.memory.save"
FORGET_MEMORY = "memhive.cmd.memory.forget"
UPDATE_MEMORY = "memhive.cmd.memory.update"
PURGE_MEMORY = "memhive.cmd.memory.purge"
MEMORY_SAVED = "memhive.evt.memory.saved"
MEMORY_INDEXED = "memhive.evt.memory.indexed"
# Several memories indexed together (MemoriesIndexed): one message for a batch of embed's.
MEMORIES_INDEXED = "memhive.evt.memory.indexed_batch"
MEMORY_FORGOTTEN = "memhive.evt.memory.forgotten"
MEMORY_UNINDEXED = "memhive.evt.memory.unindexed"
MEMORY_PURGED = "memhive.evt.memory.purged"
# An earlier revision of a restored memory (a MemorySaved), for the revision history only.
MEMORY_RESTORED = "memhive.evt.memory.restored"
MEMORIES_RECALLED = "memhive.activity.recalled"
DEAD_LETTER = "memhive.dlq"

# Edges between memories (agents and the link classifier propose; ingest applies).
LINK_MEMORIES = "memhive.cmd.memory.link"
MEMORIES_LINKED = "memhive.evt.memory.linked"

# Bulletins: one per scope, regenerated when the scope changed.
BULLETIN_REFRESHED = "memhive.evt.bulletin.refreshed"

# Upstream lifecycle events that hooks publish (any language): memhive.upstream.<noun>.<verb>.<ws>
ISSUE_CREATED = "memhive.upstream.issue.created"
ISSUE_UPDATED = "memhive.upstream.issue.updated"
COMMENT_CREATED = "memhive.upstream.comment.created"
JOB_COMPLETED = "memhive.upstream.job.completed"
NOTE_ADDED = "memhive.upstream.note.added"
KNOWLEDGE_SNAPSHOT = "memhive.upstream.knowledge.snapshot"
ALL_UPSTREAM = "memhive.upstream.>"

ALL_MEMORY_EVENTS = "memhive.evt.memory.>"

# Operator requests (core NATS request/reply, outside every stream: they act on projections
# the log can rebuild). Reindex progress goes to REINDEX_PROGRESS.<job_id>.
REINDEX_MEMORIES = "memhive.admin.reindex"
REINDEX_PROGRESS = "memhive.admin.reindex.progress"

# Token changes (core NATS request/reply): memhive.admin.tokens.<op>, answered by the one
# service allowed to write the token bucket, one replica per request (a queue group).
TOKEN_REQUESTS = "memhive.admin.tokens"
CREATE_TOKEN = "memhive.admin.tokens.create"
REVOKE_TOKEN = "memhive.admin.tokens.revoke"
ROTATE_TOKEN = "memhive.admin.tokens.rotate"
TOKEN_RESPONDERS = "token-responders"

# Work the stream itself publishes later (JetStream message schedules, stream MEMHIVE): a
# definition's subject is its identity, so scheduling one again replaces it.
# memhive.sched.memory.purge.<workspace>.<memory id> -> PURGE_MEMORY.<workspace> when due.
PURGE_SCHEDULES = "memhive.sched.memory.purge"


def purge_schedule(workspace_id: str, memory_id: str) -> str:
    return f"{PURGE_SCHEDULES}.{workspace_id}.{memory_id}"


# The audit log: memhive.audit.<action>.<workspace> (stream MEMHIVE_AUDIT).
AUDIT = "memhive.audit"


def for_workspace(subject: str, workspace_id: str) -> str:
    return f"{subject}.{workspace_id}"


def any_workspace(subject: str) -> str:
    return f"{subject}.*"


def workspace_of(subject: str) -> str:
    return subject.rsplit(".", 1)[-1]


def dead_letter(consumer: str) -> str:
    return f"{DEAD_LETTER}.{consumer}"


def reindex_progress(job_id: str) -> str:
    return f"{REINDEX_PROGRESS}.{job_id}"


def audit(action: str, workspace_id: str) -> str:
    """action "*" selects every action of the workspace."""
    return f"{AUDIT}.{action}.{workspace_id}"
