"""LexicalIndex on an OpenSearch cluster (distributed mode), through the async client."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence

from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports.lanes import LaneHit
from opensearchpy import AsyncOpenSearch

from memhive_adapters.lexical import opensearch_queries as dsl
from memhive_adapters.lexical.group_commit import completed


class OpenSearchLexicalIndex:
    """BM25 over memory bodies in one OpenSearch index.

    Writes wait for the index's next refresh before returning (`refresh=wait_for`:
    searchable on return, no segment forced per write; a write waits up to the index's
    refresh_interval, 1 s by default) and are serialised by an asyncio.Lock; reads may
    overlap. An acknowledged write is durable (OpenSearch's translog). close() closes the
    client it was given.
    """

    def __init__(self, client: AsyncOpenSearch, index: str) -> None:
        self._client = client
        self._index = index
        self._write_lock = asyncio.Lock()

    @classmethod
    def from_settings(
        cls,
        url: str,
        username: str | None,
        password: str | None,
        verify_certs: bool,
        index: str,
    ) -> OpenSearchLexicalIndex:
        auth = (username, password or "") if username else None
        client = AsyncOpenSearch(
            hosts=[url],
            http_auth=auth,
            use_ssl=url.startswith("https"),
            verify_certs=verify_certs,
            ssl_show_warn=verify_certs,
        )
        return cls(client, index)

    async def ensure_ready(self) -> None:
        async with self._write_lock:
            if not await self._client.indices.exists(index=self._index):
                await self._client.indices.create(index=self._index, body=dsl.INDEX_BODY)
            else:  # an index of an older layout gains the new fields (strict mapping)
                mapping = {"properties": dsl.INDEX_BODY["mappings"]["properties"]}
                await self._client.indices.put_mapping(index=self._index, body=mapping)

    async def upsert(self, memories: Sequence[Memory]) -> None:
        if not memories:
            return
        async with self._write_lock:
            response = await self._client.bulk(
                body=dsl.bulk_actions(self._index, memories), refresh="wait_for"
            )
        _raise_on_bulk_errors(response)

    def persisted(self) -> Awaitable[None]:
        return completed()  # each write is durable when OpenSearch acknowledges it

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        body = {"query": dsl.ids_in_workspace(workspace_id, memory_ids)}
        async with self._write_lock:
            await self._client.delete_by_query(index=self._index, body=body, refresh=True)

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        if limit <= 0 or not text.strip():
            return []
        body = dsl.search_body(text, memory_filter, limit)
        response = await self._client.search(index=self._index, body=body)
        return [LaneHit(hit["_id"], float(hit["_score"])) for hit in response["hits"]["hits"]]

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        if limit <= 0:
            return []
        body = dsl.listing_body(memory_filter, after, limit)
        response = await self._client.search(index=self._index, body=body)
        return [dsl.listed_position(hit) for hit in response["hits"]["hits"]]

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        body = {
            "size": len(memory_ids),
            "_source": False,
            "query": dsl.ids_in_workspace(workspace_id, memory_ids),
        }
        response = await self._client.search(index=self._index, body=body)
        return {hit["_id"] for hit in response["hits"]["hits"]}

    async def count(self, workspace_id: str | None = None) -> int:
        body = {"query": dsl.workspace_query(workspace_id)}
        response = await self._client.count(index=self._index, body=body)
        return int(response["count"])

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        body = {"query": {"bool": {"filter": dsl.filter_clauses(memory_filter)}}}
        response = await self._client.count(index=self._index, body=body)
        return int(response["count"])

    async def close(self) -> None:
        await self._client.close()

    async def drop(self) -> None:
        async with self._write_lock:
            await self._client.indices.delete(index=self._index, ignore=404)
        await self.close()


def _raise_on_bulk_errors(response: dict) -> None:
    if not response.get("errors"):
        return
    failed = [item for item in response["items"] if _failed(item)]
    if failed:
        raise RuntimeError(f"OpenSearch rejected {len(failed)} bulk action(s): {failed[:3]}")


def _failed(item: dict) -> bool:
    ((action, result),) = item.items()
    # Deleting a forgotten memory the index never held is not a failure.
    return "error" in result and not (action == "delete" and result.get("status") == 404)
