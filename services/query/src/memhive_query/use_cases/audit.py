"""Use cases: record what principals do (the audit trail) and let admins read it.

The write use cases are wrapped, not changed (`AuditedSave`, ...): each call is recorded
with its outcome, including refusals, after it ended. A failed append is logged and does
not fail the call it records: the action itself has happened (or been refused) already.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from memhive_domain.audit import AuditAction, AuditEntry, AuditQuery, Outcome
from memhive_domain.edges import EdgeDraft
from memhive_domain.errors import DomainError, NotAllowed
from memhive_domain.memory import MemoryDraft
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_ports import AuditLog, AuditPage, Clock

from memhive_query.use_cases.conflicts import NearDuplicates
from memhive_query.use_cases.dead_letters import WorkspaceDeadLetters
from memhive_query.use_cases.link import LinkMemories, LinkOutcome
from memhive_query.use_cases.memories import ForgetMemory
from memhive_query.use_cases.save import SaveMemory, SaveOutcome, Wait

log = logging.getLogger(__name__)


@dataclass
class Recording:
    target: str = ""


class AuditTrail:
    def __init__(self, log_: AuditLog, clock: Clock) -> None:
        self._log, self._clock = log_, clock

    @asynccontextmanager
    async def recording(
        self, principal: Principal, action: AuditAction, target: str = ""
    ) -> AsyncIterator[Recording]:
        """Records the block's outcome: ok, denied (NotAllowed), rejected (a rule or
        input refused it) or failed; the block may set the target once it knows it."""
        note, outcome, detail = Recording(target), Outcome.OK, ""
        try:
            yield note
        except NotAllowed as exc:
            outcome, detail = Outcome.DENIED, str(exc)
            raise
        except (DomainError, NearDuplicates) as exc:
            outcome, detail = Outcome.REJECTED, str(exc)
            raise
        except Exception as exc:
            outcome, detail = Outcome.FAILED, type(exc).__name__
            raise
        finally:
            await self.record(principal, action, note.target, outcome, detail)

    async def record(
        self,
        principal: Principal,
        action: AuditAction,
        target: str,
        outcome: Outcome,
        detail: str = "",
    ) -> None:
        entry = AuditEntry.of(
            str(uuid.uuid4()), principal, action, target, outcome, self._clock.now(), detail
        )
        try:
            await self._log.append(entry)
        except Exception:
            log.exception("could not append audit entry %s %s", action, target)

    async def read(self, principal: Principal, query: AuditQuery, before: int | None) -> AuditPage:
        async with self.recording(principal, AuditAction.AUDIT_READ):
            require(principal, Action.READ_AUDIT)
            return await self._log.read(principal.workspace_id, query, before)


class AuditedSave:
    def __init__(self, save: SaveMemory, trail: AuditTrail) -> None:
        self._save, self._trail = save, trail

    async def __call__(
        self,
        principal: Principal,
        draft: MemoryDraft,
        wait: Wait,
        *,
        force: bool = False,
        supersedes: Sequence[str] = (),
    ) -> SaveOutcome:
        async with self._trail.recording(principal, AuditAction.SAVE) as note:
            outcome = await self._save(principal, draft, wait, force=force, supersedes=supersedes)
            note.target = outcome.memory.id
            return outcome


class AuditedForget:
    def __init__(self, forget: ForgetMemory, trail: AuditTrail) -> None:
        self._forget, self._trail = forget, trail

    async def __call__(
        self, principal: Principal, memory_id: str, wait: Wait, reason: str = ""
    ) -> str:
        async with self._trail.recording(principal, AuditAction.FORGET, memory_id):
            return await self._forget(principal, memory_id, wait, reason)


class AuditedLink:
    def __init__(self, link: LinkMemories, trail: AuditTrail) -> None:
        self._link, self._trail = link, trail

    async def __call__(self, principal: Principal, draft: EdgeDraft) -> LinkOutcome:
        target = f"{draft.src_id}->{draft.dst_id}"
        async with self._trail.recording(principal, AuditAction.LINK, target):
            return await self._link(principal, draft)


class AuditedDeadLetters:
    def __init__(self, letters: WorkspaceDeadLetters, trail: AuditTrail) -> None:
        self._letters, self._trail = letters, trail

    async def __call__(self, principal: Principal, consumer: str | None, limit: int):
        action = AuditAction.DEAD_LETTERS_LIST
        async with self._trail.recording(principal, action, consumer or ""):
            return await self._letters(principal, consumer, limit)
