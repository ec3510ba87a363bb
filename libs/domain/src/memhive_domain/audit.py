"""The audit log: who did what to which target, when, and how it ended.

Entries are appended to the log (stream MEMHIVE_AUDIT) by whoever acted: the gateway for
REST and MCP calls, the CLI for what operators do (tokens, reindex, hook credentials).
Admins read them newest first, filtered by action, principal, target and time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import Principal

MAX_PAGE = 500
DEFAULT_PAGE = 100


class AuditAction(StrEnum):
    """Subject tokens too: `memhive.audit.<action>.<workspace>` (no dots inside)."""

    SAVE = "save"
    UPDATE = "update"
    FLAG = "flag"  # a flag or a confirmation: a reader's verdict
    FORGET = "forget"
    LINK = "link"
    KV_PUT = "kv_put"  # target: kv:<node path>/<key>
    KV_DELETE = "kv_delete"
    TOKEN_CREATE = "token_create"
    TOKEN_REVOKE = "token_revoke"
    TOKEN_ROTATE = "token_rotate"
    DEAD_LETTERS_LIST = "dead_letters_list"
    AUDIT_READ = "audit_read"
    PRODUCT_DEFINE = "product_define"  # PUT /v1/products/{id}
    REINDEX = "reindex"  # `memhive reindex` (target: the job id)
    HOOK_ISSUE = "hook_issue"  # `memhive hook-credentials` (target: the hook's public key)
    HOOK_REVOKE = "hook_revoke"
    EXPORT = "export"  # GET /v1/export (target: the format and node)
    IMPORT = "import"  # POST /v1/import (target: the file; detail: what was created, skipped)


# Operations on the whole deployment rather than one workspace (a full `memhive reindex`) are
# recorded under this name, which no workspace id can take (those start with a-z or 0-9):
# `memhive audit list --workspace _deployment`.
DEPLOYMENT = "_deployment"


class Outcome(StrEnum):
    OK = "ok"  # done (or accepted: durable in the log, applied shortly)
    DENIED = "denied"  # the policy refused it
    REJECTED = "rejected"  # invalid input, unknown target, conflict
    FAILED = "failed"  # memhive could not do it


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: str
    workspace_id: str
    time: datetime
    action: AuditAction
    user_id: str
    role: str
    credential: str  # "token:<id>", "oidc:<subject>", "cli"
    target: str  # a memory id, "src->dst", a token id; "" when none
    outcome: Outcome
    acting_for: str | None = None
    detail: str = ""  # e.g. the refusal's reason

    @classmethod
    def of(
        cls,
        entry_id: str,
        principal: Principal,
        action: AuditAction,
        target: str,
        outcome: Outcome,
        time: datetime,
        detail: str = "",
    ) -> AuditEntry:
        return cls(
            id=entry_id,
            workspace_id=principal.workspace_id,
            time=time,
            action=action,
            user_id=principal.user_id,
            role=principal.role.value,
            credential=principal.credential or "",
            target=target,
            outcome=outcome,
            acting_for=principal.acting_for,
            detail=detail[:500],
        )


@dataclass(frozen=True, slots=True)
class AuditQuery:
    action: AuditAction | None = None
    principal: str | None = None  # a user id or a credential ("token:<id>", "oidc:<sub>")
    target: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int = DEFAULT_PAGE

    def matches(self, entry: AuditEntry) -> bool:
        """What the subject filter (workspace, action) cannot select."""
        return (
            (self.principal is None or self.principal in (entry.user_id, entry.credential))
            and (self.target is None or self.target == entry.target)
            and (self.since is None or entry.time >= self.since)
            and (self.until is None or entry.time < self.until)
        )


def audit_query(
    action: str | None,
    principal: str | None,
    target: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
) -> AuditQuery:
    problems = []
    parsed = None
    if action is not None:
        try:
            parsed = AuditAction(action)
        except ValueError:
            problems.append(FieldProblem("action", f"one of {', '.join(AuditAction)}"))
    for name, moment in (("since", since), ("until", until)):
        if moment is not None and moment.tzinfo is None:
            problems.append(FieldProblem(name, "needs a time zone (e.g. Z)"))
    if not 1 <= limit <= MAX_PAGE:
        problems.append(FieldProblem("limit", f"1..{MAX_PAGE}"))
    if problems:
        raise InvalidInput(problems)
    return AuditQuery(parsed, principal or None, target or None, since, until, limit)
