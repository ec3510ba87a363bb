"""MemhiveClient (sync) and AsyncMemhiveClient: the same methods, one over httpx.Client,
one over aiohttp (or the httpx transport a caller gives: `senders.py`). Each method builds a
`Call` and runs it with retries."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar

import httpx

from memhive_client import calls
from memhive_client import models as m
from memhive_client.errors import raise_for
from memhive_client.retry import RetryPolicy
from memhive_client.senders import AsyncSender, HttpxSender

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_RETRY = RetryPolicy()


def _settings(base_url: str | None, token: str | None) -> tuple[str, dict[str, str]]:
    """Arguments first, then MEMHIVE_URL / MEMHIVE_TOKEN, then the local default."""
    url = base_url or os.environ.get("MEMHIVE_URL") or DEFAULT_URL
    token = token or os.environ.get("MEMHIVE_TOKEN")
    return url, ({"Authorization": f"Bearer {token}"} if token else {})


def _save_request(kind: str, body: str, fields: dict[str, Any]) -> m.SaveRequest:
    return m.SaveRequest(kind=kind, body=body, **fields)


class MemhiveClient:
    """`MemhiveClient(base_url, token)`; use as a context manager or call `close()`."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout_s: float = 60.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url, headers = _settings(base_url, token)
        self._http = httpx.Client(
            base_url=url, headers=headers, timeout=timeout_s, transport=transport
        )
        self._retry = retry

    def __enter__(self) -> MemhiveClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: calls.Call[T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._http.request(
                    call.method, call.path, params=call.params, json=call.json
                )
            except httpx.ConnectError:
                if not self._retry.should_retry(attempt, None):
                    raise
                time.sleep(self._retry.delay(attempt, None))
                continue
            if not self._retry.should_retry(attempt, response):
                raise_for(response)
                return call.read(response)
            time.sleep(self._retry.delay(attempt, response))

    def save(
        self, kind: str, body: str, *, wait: m.Wait = "indexed", **fields: Any
    ) -> m.SaveResult:
        """Fields as in `SaveRequest` (tags, scope, product_id, visibility, supersedes, ...).
        -> SaveResult. `wait="indexed"` (the default) returns once recall can find it and
        refuses near-duplicates (NearDuplicates, 409); "persisted" and "accepted" answer
        sooner, without that check (exact duplicates are still found; near-duplicates
        are linked to the new memory afterwards)."""
        return self._run(calls.save(_save_request(kind, body, fields), wait))

    def get(self, memory_id: str) -> m.Memory:
        return self._run(calls.get(memory_id))

    def list(
        self,
        *,
        kind: list[str] | None = None,
        scope: str | None = None,
        product_id: str | None = None,
        scope_path: str | None = None,
        tag: list[str] | None = None,
        limit: int = 20,
        cursor: str | None = None,
        **window: Any,
    ) -> m.MemoryPage:
        call = calls.list_page(
            kind=kind,
            scope=scope,
            product_id=product_id,
            scope_path=scope_path,
            tag=tag,
            limit=limit,
            cursor=cursor,
            window=m.ListWindow(**window),
        )
        return self._run(call)

    def iter_memories(self, *, page_size: int = 100, **filters: Any) -> Iterator[m.Memory]:
        """Every memory matching the filters, newest first, page after page."""
        cursor = None
        while True:
            page = self.list(limit=page_size, cursor=cursor, **filters)
            yield from page.items
            if not (cursor := page.next_cursor):
                return

    def forget(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.ForgetResult:
        return self._run(calls.forget(memory_id, wait))

    def recall(self, query: str, **fields: Any) -> list[m.RecalledMemory]:
        """Fields as in `RecallRequest` (scope, product_id, kinds, tags, max_results, ...)."""
        return self._run(calls.recall(m.RecallRequest(query=query, **fields)))

    def link(self, src_id: str, dst_id: str, kind: str, **fields: Any) -> m.LinkResult:
        request = m.EdgeRequest(src_id=src_id, dst_id=dst_id, kind=kind, **fields)
        return self._run(calls.link(request))

    def edges(self, memory_id: str) -> list[m.Edge]:
        return self._run(calls.edges(memory_id))

    def revisions(self, memory_id: str) -> list[m.Revision]:
        return self._run(calls.revisions(memory_id))

    def bulletin(self, scope: str = "global", product_id: str | None = None) -> m.Bulletin:
        return self._run(calls.bulletin(scope, product_id))

    def context(self, token_budget: int, **fields: Any) -> m.ContextPack:
        return self._run(calls.context(m.ContextRequest(token_budget=token_budget, **fields)))

    def claude_code_hook(self, event: Mapping[str, Any], **options: Any) -> dict[str, Any]:
        """As AsyncMemhiveClient.claude_code_hook."""
        request = m.ClaudeCodeHookInput.model_validate(dict(event))
        return self._run(calls.claude_code_hook(request, **options))

    def dead_letters(self, consumer: str | None = None, limit: int = 100) -> list[m.DeadLetter]:
        return self._run(calls.dead_letters(consumer, limit))

    # --- changing a memory: update, pin, flags, confirmations ----------------------------

    def update(
        self, memory_id: str, *, wait: m.Wait = "persisted", **fields: Any
    ) -> m.UpdateResult:
        """Fields as in `UpdateRequest` (body, importance, tags, pinned, visibility,
        expires_at, force); only those given change, `expires_at=None` removes the expiry."""
        return self._run(calls.update(memory_id, m.UpdateRequest(**fields), wait))

    def pin(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        return self.update(memory_id, pinned=True, wait=wait)

    def unpin(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        return self.update(memory_id, pinned=False, wait=wait)

    def flag(
        self, memory_id: str, kind: str, reason: str, *, wait: m.Wait = "persisted"
    ) -> m.FlagResult:
        """kind: wrong, outdated or unverified; `.flag_id` names the flag for clear_flags."""
        request = m.FlagRequest(kind=kind, reason=reason)
        return self._run(calls.flag(memory_id, request, wait))

    def flags(self, memory_id: str) -> list[m.Flag]:
        return self._run(calls.flags(memory_id))

    def clear_flags(
        self, memory_id: str, flag_ids: list[str] | None = None, *, wait: m.Wait = "persisted"
    ) -> m.UpdateResult:
        """The flags named, or every flag when none is named."""
        return self._run(calls.clear_flags(memory_id, flag_ids, wait))

    def confirm(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        """The recalled memory held (a procedure worked): more trust, no longer stale."""
        return self._run(calls.confirm(memory_id, wait))

    # --- consolidation and skills ---------------------------------------------------------

    def consolidate(
        self, ids: list[str], *, wait: m.Wait = "persisted", **fields: Any
    ) -> m.ConsolidateResult:
        """Fields as in `ConsolidateRequest` (body, or summarize=True; kind, importance, tags)."""
        request = m.ConsolidateRequest(ids=ids, **fields)
        return self._run(calls.consolidate(request, wait))

    def crystallize(self, memory_id: str, *, wait: m.Wait = "persisted", **fields: Any) -> m.Skill:
        """Fields as in `CrystallizeRequest` (also, name, description)."""
        request = m.CrystallizeRequest(**fields)
        return self._run(calls.crystallize(memory_id, request, wait))

    def skill(
        self, memory_id: str, *, also: list[str] | None = None, name: str | None = None
    ) -> str:
        """The skill's SKILL.md as the memories read now."""
        return self._run(calls.skill_file(memory_id, also, name))

    def skills(
        self, *, scope_path: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> m.SkillPage:
        """The skills this token may read, newest first: one page of procedures filtered, so
        a page may be short and still have a next_cursor."""
        return self._run(calls.skills(scope_path, limit, cursor))

    def skill_candidates(
        self, *, scope_path: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> m.SkillCandidates:
        return self._run(calls.skill_candidates(scope_path, limit, cursor))

    # --- products, tokens, audit ----------------------------------------------------------

    def put_product(
        self, product_id: str, visibility: str, *, name: str | None = None
    ) -> m.Product:
        request = m.ProductRequest(visibility=visibility, name=name)
        return self._run(calls.put_product(product_id, request))

    def product(self, product_id: str) -> m.Product:
        return self._run(calls.product(product_id))

    def products(self) -> list[m.Product]:
        return self._run(calls.products())

    def scopes(self) -> m.Scopes:
        """`global` and every product this token may see (recorded or named by its memories)."""
        return self._run(calls.scopes())

    def create_token(self, user: str, **fields: Any) -> m.IssuedToken:
        """Admins. Fields as in `CreateTokenRequest` (role, name, home, acting_for,
        expires_in or expires_at); the secret is in `.token` of this answer only."""
        return self._run(calls.create_token(m.CreateTokenRequest(user=user, **fields)))

    def tokens(self) -> list[m.TokenInfo]:
        return self._run(calls.tokens())

    def revoke_token(self, token_id: str) -> m.TokenInfo:
        return self._run(calls.revoke_token(token_id))

    def rotate_token(self, token_id: str, *, grace: str | None = None) -> m.IssuedToken:
        return self._run(calls.rotate_token(token_id, m.RotateTokenRequest(grace=grace)))

    def audit(
        self,
        *,
        action: str | None = None,
        principal: str | None = None,
        target: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> m.AuditPage:
        """Admins: the workspace's audit log, newest first."""
        call = calls.audit(
            action=action,
            principal=principal,
            target=target,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        return self._run(call)

    # --- key/value memory and recent activity ---------------------------------------------

    def get_state(self, scope: str, key: str) -> m.KvEntry:
        """The JSON value under `key` at the node `scope` (e.g. "product:ios/team:mobile")."""
        return self._run(calls.get_state(scope, key))

    def set_state(self, scope: str, key: str, value: Any, **fields: Any) -> m.KvEntry:
        """Fields as in `KvPutRequest`: ttl_s, revision (compare-and-set), create_only;
        a revision that no longer holds raises Conflict (`.current_revision`)."""
        return self._run(calls.set_state(scope, key, m.KvPutRequest(value=value, **fields)))

    def delete_state(self, scope: str, key: str, *, revision: int | None = None) -> m.KvDeleted:
        return self._run(calls.delete_state(scope, key, revision))

    def list_state(
        self,
        scope: str,
        *,
        limit: int = 20,
        cursor: str | None = None,
        include_values: bool = False,
    ) -> m.KvPage:
        call = calls.list_state(scope, limit=limit, cursor=cursor, include_values=include_values)
        return self._run(call)

    def iter_state(self, scope: str, *, page_size: int = 100, **fields: Any) -> Iterator[m.KvEntry]:
        """Every entry at the node, in the order they were last written, page after page."""
        cursor = None
        while True:
            page = self.list_state(scope, limit=page_size, cursor=cursor, **fields)
            yield from page.items
            if not (cursor := page.next_cursor):
                return

    def activity(
        self,
        *,
        scope: str | None = None,
        kind: list[str] | None = None,
        since: datetime | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> m.ActivityPage:
        """What was saved, updated, forgotten, linked and recalled, newest first, as far as
        this token may read it. A page may be short and still have a next_cursor."""
        call = calls.activity(scope=scope, kind=kind, since=since, limit=limit, cursor=cursor)
        return self._run(call)

    def iter_activity(self, *, page_size: int = 100, **filters: Any) -> Iterator[m.ActivityEntry]:
        """Every entry, newest first, page after page (with `since`, back to that moment)."""
        cursor = None
        while True:
            page = self.activity(limit=page_size, cursor=cursor, **filters)
            yield from page.items
            if not (cursor := page.next_cursor):
                return

    def health(self) -> dict:
        return self._run(calls.health())


class AsyncMemhiveClient:
    """The same methods as MemhiveClient, to be awaited; `async with` or `await aclose()`."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout_s: float = 60.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int | None = None,
        sender: Literal["aiohttp", "httpx"] = "aiohttp",
    ) -> None:
        """Requests go over aiohttp (`senders.py` says why), or over httpx with `sender="httpx"`
        (a process that sends a request or two: aiohttp takes ~0.19 s to import) or with a
        `transport` (an ASGI app, a mock). `max_connections` bounds the pool (100)."""
        url, headers = _settings(base_url, token)
        self._http: AsyncSender
        if transport is None and sender == "aiohttp":
            from memhive_client.aiohttp_sender import AiohttpSender  # loaded only when used

            self._http = AiohttpSender(url, headers, timeout_s, max_connections)
        else:
            self._http = HttpxSender(url, headers, timeout_s, transport, max_connections)
        self._retry = retry

    async def __aenter__(self) -> AsyncMemhiveClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _run(self, call: calls.Call[T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.send(call.method, call.path, call.params, call.json)
            except httpx.ConnectError:
                if not self._retry.should_retry(attempt, None):
                    raise
                await asyncio.sleep(self._retry.delay(attempt, None))
                continue
            if not self._retry.should_retry(attempt, response):
                raise_for(response)
                return call.read(response)
            await asyncio.sleep(self._retry.delay(attempt, response))

    async def save(
        self, kind: str, body: str, *, wait: m.Wait = "indexed", **fields: Any
    ) -> m.SaveResult:
        """As `MemhiveClient.save`."""
        return await self._run(calls.save(_save_request(kind, body, fields), wait))

    async def get(self, memory_id: str) -> m.Memory:
        return await self._run(calls.get(memory_id))

    async def list(
        self,
        *,
        kind: list[str] | None = None,
        scope: str | None = None,
        product_id: str | None = None,
        scope_path: str | None = None,
        tag: list[str] | None = None,
        limit: int = 20,
        cursor: str | None = None,
        **window: Any,
    ) -> m.MemoryPage:
        call = calls.list_page(
            kind=kind,
            scope=scope,
            product_id=product_id,
            scope_path=scope_path,
            tag=tag,
            limit=limit,
            cursor=cursor,
            window=m.ListWindow(**window),
        )
        return await self._run(call)

    async def iter_memories(
        self, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[m.Memory]:
        cursor = None
        while True:
            page = await self.list(limit=page_size, cursor=cursor, **filters)
            for memory in page.items:
                yield memory
            if not (cursor := page.next_cursor):
                return

    async def forget(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.ForgetResult:
        return await self._run(calls.forget(memory_id, wait))

    async def recall(self, query: str, **fields: Any) -> list[m.RecalledMemory]:
        return await self._run(calls.recall(m.RecallRequest(query=query, **fields)))

    async def link(self, src_id: str, dst_id: str, kind: str, **fields: Any) -> m.LinkResult:
        request = m.EdgeRequest(src_id=src_id, dst_id=dst_id, kind=kind, **fields)
        return await self._run(calls.link(request))

    async def edges(self, memory_id: str) -> list[m.Edge]:
        return await self._run(calls.edges(memory_id))

    async def revisions(self, memory_id: str) -> list[m.Revision]:
        return await self._run(calls.revisions(memory_id))

    async def bulletin(self, scope: str = "global", product_id: str | None = None) -> m.Bulletin:
        return await self._run(calls.bulletin(scope, product_id))

    async def context(self, token_budget: int, **fields: Any) -> m.ContextPack:
        request = m.ContextRequest(token_budget=token_budget, **fields)
        return await self._run(calls.context(request))

    async def claude_code_hook(self, event: Mapping[str, Any], **options: Any) -> dict[str, Any]:
        """A Claude Code hook's answer to `event` (the hook's input): `{"hookSpecificOutput":
        {...}}` to print, or `{}` when there is nothing to add. Options: product_id,
        scope_path, budget, limit, min_confidence."""
        request = m.ClaudeCodeHookInput.model_validate(dict(event))
        return await self._run(calls.claude_code_hook(request, **options))

    async def dead_letters(
        self, consumer: str | None = None, limit: int = 100
    ) -> list[m.DeadLetter]:
        return await self._run(calls.dead_letters(consumer, limit))

    # --- changing a memory: update, pin, flags, confirmations ----------------------------

    async def update(
        self, memory_id: str, *, wait: m.Wait = "persisted", **fields: Any
    ) -> m.UpdateResult:
        """Fields as in `UpdateRequest` (body, importance, tags, pinned, visibility,
        expires_at, force); only those given change, `expires_at=None` removes the expiry."""
        return await self._run(calls.update(memory_id, m.UpdateRequest(**fields), wait))

    async def pin(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        return await self.update(memory_id, pinned=True, wait=wait)

    async def unpin(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        return await self.update(memory_id, pinned=False, wait=wait)

    async def flag(
        self, memory_id: str, kind: str, reason: str, *, wait: m.Wait = "persisted"
    ) -> m.FlagResult:
        """kind: wrong, outdated or unverified; `.flag_id` names the flag for clear_flags."""
        request = m.FlagRequest(kind=kind, reason=reason)
        return await self._run(calls.flag(memory_id, request, wait))

    async def flags(self, memory_id: str) -> list[m.Flag]:
        return await self._run(calls.flags(memory_id))

    async def clear_flags(
        self, memory_id: str, flag_ids: list[str] | None = None, *, wait: m.Wait = "persisted"
    ) -> m.UpdateResult:
        """The flags named, or every flag when none is named."""
        return await self._run(calls.clear_flags(memory_id, flag_ids, wait))

    async def confirm(self, memory_id: str, *, wait: m.Wait = "persisted") -> m.UpdateResult:
        """The recalled memory held (a procedure worked): more trust, no longer stale."""
        return await self._run(calls.confirm(memory_id, wait))

    # --- consolidation and skills ---------------------------------------------------------

    async def consolidate(
        self, ids: list[str], *, wait: m.Wait = "persisted", **fields: Any
    ) -> m.ConsolidateResult:
        """Fields as in `ConsolidateRequest` (body, or summarize=True; kind, importance, tags)."""
        request = m.ConsolidateRequest(ids=ids, **fields)
        return await self._run(calls.consolidate(request, wait))

    async def crystallize(
        self, memory_id: str, *, wait: m.Wait = "persisted", **fields: Any
    ) -> m.Skill:
        """Fields as in `CrystallizeRequest` (also, name, description)."""
        request = m.CrystallizeRequest(**fields)
        return await self._run(calls.crystallize(memory_id, request, wait))

    async def skill(
        self, memory_id: str, *, also: list[str] | None = None, name: str | None = None
    ) -> str:
        """The skill's SKILL.md as the memories read now."""
        return await self._run(calls.skill_file(memory_id, also, name))

    async def skills(
        self, *, scope_path: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> m.SkillPage:
        """The skills this token may read, newest first: one page of procedures filtered, so
        a page may be short and still have a next_cursor."""
        return await self._run(calls.skills(scope_path, limit, cursor))

    async def skill_candidates(
        self, *, scope_path: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> m.SkillCandidates:
        return await self._run(calls.skill_candidates(scope_path, limit, cursor))

    # --- products, tokens, audit ----------------------------------------------------------

    async def put_product(
        self, product_id: str, visibility: str, *, name: str | None = None
    ) -> m.Product:
        request = m.ProductRequest(visibility=visibility, name=name)
        return await self._run(calls.put_product(product_id, request))

    async def product(self, product_id: str) -> m.Product:
        return await self._run(calls.product(product_id))

    async def products(self) -> list[m.Product]:
        return await self._run(calls.products())

    async def scopes(self) -> m.Scopes:
        return await self._run(calls.scopes())

    async def create_token(self, user: str, **fields: Any) -> m.IssuedToken:
        """Admins. Fields as in `CreateTokenRequest` (role, name, home, acting_for,
        expires_in or expires_at); the secret is in `.token` of this answer only."""
        return await self._run(calls.create_token(m.CreateTokenRequest(user=user, **fields)))

    async def tokens(self) -> list[m.TokenInfo]:
        return await self._run(calls.tokens())

    async def revoke_token(self, token_id: str) -> m.TokenInfo:
        return await self._run(calls.revoke_token(token_id))

    async def rotate_token(self, token_id: str, *, grace: str | None = None) -> m.IssuedToken:
        return await self._run(calls.rotate_token(token_id, m.RotateTokenRequest(grace=grace)))

    async def audit(
        self,
        *,
        action: str | None = None,
        principal: str | None = None,
        target: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> m.AuditPage:
        """Admins: the workspace's audit log, newest first."""
        call = calls.audit(
            action=action,
            principal=principal,
            target=target,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        return await self._run(call)

    # --- key/value memory and recent activity ---------------------------------------------

    async def get_state(self, scope: str, key: str) -> m.KvEntry:
        return await self._run(calls.get_state(scope, key))

    async def set_state(self, scope: str, key: str, value: Any, **fields: Any) -> m.KvEntry:
        request = m.KvPutRequest(value=value, **fields)
        return await self._run(calls.set_state(scope, key, request))

    async def delete_state(
        self, scope: str, key: str, *, revision: int | None = None
    ) -> m.KvDeleted:
        return await self._run(calls.delete_state(scope, key, revision))

    async def list_state(
        self,
        scope: str,
        *,
        limit: int = 20,
        cursor: str | None = None,
        include_values: bool = False,
    ) -> m.KvPage:
        call = calls.list_state(scope, limit=limit, cursor=cursor, include_values=include_values)
        return await self._run(call)

    async def iter_state(
        self, scope: str, *, page_size: int = 100, **fields: Any
    ) -> AsyncIterator[m.KvEntry]:
        cursor = None
        while True:
            page = await self.list_state(scope, limit=page_size, cursor=cursor, **fields)
            for entry in page.items:
                yield entry
            if not (cursor := page.next_cursor):
                return

    async def activity(
        self,
        *,
        scope: str | None = None,
        kind: list[str] | None = None,
        since: datetime | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> m.ActivityPage:
        call = calls.activity(scope=scope, kind=kind, since=since, limit=limit, cursor=cursor)
        return await self._run(call)

    async def iter_activity(
        self, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[m.ActivityEntry]:
        cursor = None
        while True:
            page = await self.activity(limit=page_size, cursor=cursor, **filters)
            for entry in page.items:
                yield entry
            if not (cursor := page.next_cursor):
                return

    async def health(self) -> dict:
        return await self._run(calls.health())


__all__ = ["AsyncMemhiveClient", "MemhiveClient"]
