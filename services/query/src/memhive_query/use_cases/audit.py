"""The gateway's audited use cases: each write use case is wrapped, not changed
(`AuditedSave`, ...), and records its outcome in the trail (`memhive_application.audit_trail`):
each call is recorded with its outcome, including refusals, after it ended. A failed append
is logged and does not fail the call it records: the action itself has happened (or been
refused) already.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from memhive_application.audit_trail import AuditTrail
from memhive_domain.audit import AuditAction
from memhive_domain.changes import MemoryChanges, change_action
from memhive_domain.edges import EdgeDraft
from memhive_domain.errors import DomainError
from memhive_domain.kv import KvAddress, KvEntry, WriteRequest
from memhive_domain.memory import MemoryDraft
from memhive_domain.policy import Action
from memhive_domain.principals import Principal
from memhive_domain.products import Product
from memhive_ports import AuditLog, Clock

from memhive_query.use_cases.conflicts import NearDuplicates
from memhive_query.use_cases.dead_letters import WorkspaceDeadLetters
from memhive_query.use_cases.exports import ExportMemories
from memhive_query.use_cases.imports import ImportMemories, ImportRequest, ImportRun, ItemOutcome
from memhive_query.use_cases.key_values import KeyValues, KvListing
from memhive_query.use_cases.link import LinkMemories, LinkOutcome
from memhive_query.use_cases.memories import ForgetMemory
from memhive_query.use_cases.products import Products
from memhive_query.use_cases.save import SaveMemory, SaveOutcome, Wait
from memhive_query.use_cases.update import UpdateMemory, UpdateOutcome


def gateway_trail(log: AuditLog, clock: Clock) -> AuditTrail:
    """The gateway's trail: a near-duplicate refusal is a rejection, like a domain rule."""
    return AuditTrail(log, clock, rejections=(DomainError, NearDuplicates))


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
            outcome = await self._save(
                principal,
                draft,
                wait,
                force=force,
                supersedes=supersedes,
                accepted=lambda memory: note.settle(memory.id),
            )
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


class AuditedUpdate:
    def __init__(self, update: UpdateMemory, trail: AuditTrail) -> None:
        self._update, self._trail = update, trail

    async def __call__(
        self,
        principal: Principal,
        memory_id: str,
        changes: MemoryChanges,
        *,
        wait: Wait,
        force: bool = False,
    ) -> UpdateOutcome:
        verdict = change_action(changes) in (Action.FLAG, Action.CONFIRM)
        action = AuditAction.FLAG if verdict else AuditAction.UPDATE
        async with self._trail.recording(principal, action, memory_id):
            return await self._update(principal, memory_id, changes, wait=wait, force=force)


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


class AuditedProducts:
    """Defining a product is audited (its visibility is what its memories inherit); reading
    products is not."""

    def __init__(self, products: Products, trail: AuditTrail) -> None:
        self._products, self._trail = products, trail

    async def put(
        self, principal: Principal, product_id: str, visibility: str, name: str | None
    ) -> Product:
        async with self._trail.recording(principal, AuditAction.PRODUCT_DEFINE, product_id):
            return await self._products.put(principal, product_id, visibility, name)

    async def get(self, principal: Principal, product_id: str) -> Product:
        return await self._products.get(principal, product_id)

    async def list(self, principal: Principal) -> list[Product]:
        return await self._products.list(principal)


class AuditedKeyValues:
    """Writes (put, delete) are recorded with the target `kv:<scope>/<key>`; reads are not,
    like memory reads."""

    def __init__(self, key_values: KeyValues, trail: AuditTrail) -> None:
        self._kv, self._trail = key_values, trail

    async def get(self, principal: Principal, scope: str, key: str) -> KvEntry:
        return await self._kv.get(principal, scope, key)

    async def list(
        self, principal: Principal, scope: str, cursor: str | None, limit: int
    ) -> KvListing:
        return await self._kv.list(principal, scope, cursor, limit)

    async def put(self, principal: Principal, request: WriteRequest) -> KvEntry:
        target = kv_target(request.scope, request.key)
        async with self._trail.recording(principal, AuditAction.KV_PUT, target):
            return await self._kv.put(principal, request)

    async def delete(
        self,
        principal: Principal,
        scope: str,
        key: str,
        revision: int | None = None,
        if_match: str | None = None,
    ) -> KvAddress:
        target = kv_target(scope, key)
        async with self._trail.recording(principal, AuditAction.KV_DELETE, target):
            return await self._kv.delete(principal, scope, key, revision, if_match)


def kv_target(scope: object, key: object) -> str:
    """As the caller named it (refusals too), made storable: valid Unicode, bounded."""
    text = f"kv:{scope}/{key}"[:700]
    return text.encode("utf-8", "replace").decode("utf-8")


class AuditedImport:
    """One entry per import: refused (with why) when its plan is, else when the run ends, with
    what it created and skipped (a dry run says so; a run cut short is `failed`)."""

    def __init__(self, imports: ImportMemories, trail: AuditTrail) -> None:
        self._imports, self._trail = imports, trail

    async def plan(self, principal: Principal, request: ImportRequest) -> ImportRun:
        try:
            return await self._imports.plan(principal, request)
        except Exception:
            async with self._trail.recording(principal, AuditAction.IMPORT, _file(request)):
                raise  # recorded as denied, rejected or failed, then raised on

    async def run(
        self, principal: Principal, run: ImportRun, request: ImportRequest
    ) -> AsyncIterator[ItemOutcome]:
        async with self._trail.recording(principal, AuditAction.IMPORT, _file(request)) as note:
            async for outcome in run:
                yield outcome
            dry = "dry run: would have " if request.dry_run else ""
            note.detail = f"{request.form.value}: {dry}{run.tally.summary()}"


def _file(request: ImportRequest) -> str:
    return (request.path or f"({request.form.value})")[:300]


class AuditedExport:
    """Recorded when the export starts (a refusal too): what was asked, in which form."""

    def __init__(self, export: ExportMemories, trail: AuditTrail) -> None:
        self._export, self._trail = export, trail

    async def jsonl(self, principal: Principal, scope_path: str | None) -> AsyncIterator[str]:
        async with self._trail.recording(
            principal, AuditAction.EXPORT, _asked("jsonl", scope_path)
        ):
            return self._export.jsonl(principal, scope_path)

    async def markdown(self, principal: Principal, scope_path: str | None) -> dict[str, str]:
        target = _asked("markdown", scope_path)
        async with self._trail.recording(principal, AuditAction.EXPORT, target):
            return await self._export.markdown(principal, scope_path)


def _asked(form: str, scope_path: str | None) -> str:
    return f"{form}:{scope_path or '*'}"[:300]
