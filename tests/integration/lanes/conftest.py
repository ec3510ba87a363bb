"""Every backend of each lane port, behind one fixture per port, so each passes one contract.

Embedded engines (qdrant-edge, tantivy) and qdrant-client's local mode always run. A Qdrant
server runs when MEMHIVE_TEST_QDRANT_URL is set; OpenSearch when MEMHIVE_TEST_OPENSEARCH_URL
is set or a Docker engine answers (testcontainers). Otherwise those parametrisations skip.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from memhive_adapters.lexical.opensearch_index import OpenSearchLexicalIndex
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_adapters.vector.qdrant_index import QdrantVectorIndex
from qdrant_client import AsyncQdrantClient

from tests.integration.lanes.memories import DIMENSIONS

# The server docker-compose.yml runs (tests/integration/deploy/test_compose.py keeps them equal).
OPENSEARCH_IMAGE = "opensearchproject/opensearch:3.2.0"


@dataclass
class Backend:
    """Opens the same store again and again; `persistent` says if data outlives close()."""

    name: str
    opener: Callable[[], Awaitable[Any]]
    persistent: bool
    opened: list[Any] = field(default_factory=list)

    async def open(self) -> Any:
        index = await self.opener()
        await index.ensure_ready()
        self.opened.append(index)
        return index


async def _edge(path: Path) -> EdgeVectorIndex:
    return EdgeVectorIndex(path, DIMENSIONS)


async def _qdrant_local() -> QdrantVectorIndex:
    client = AsyncQdrantClient(location=":memory:")
    return QdrantVectorIndex(client, "memories", DIMENSIONS)


async def _qdrant_server(url: str, collection: str) -> QdrantVectorIndex:
    client = AsyncQdrantClient(url=url, api_key=os.environ.get("MEMHIVE_TEST_QDRANT_API_KEY"))
    return QdrantVectorIndex(client, collection, DIMENSIONS)


@pytest.fixture(params=["edge", "qdrant-local", "qdrant-server"])
async def vector_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "edge":
        backend = Backend("edge", lambda: _edge(tmp_path / "edge"), persistent=True)
    elif request.param == "qdrant-local":
        backend = Backend("qdrant-local", _qdrant_local, persistent=False)
    else:
        url = os.environ.get("MEMHIVE_TEST_QDRANT_URL")
        if not url:
            pytest.skip("no Qdrant server: set MEMHIVE_TEST_QDRANT_URL to run this backend")
        collection = f"memhive-test-{uuid.uuid4().hex[:12]}"
        backend = Backend("qdrant-server", lambda: _qdrant_server(url, collection), True)
    yield backend
    for index in backend.opened:
        await index.close()


@pytest.fixture
async def vector_index(vector_backend: Backend) -> Any:
    return await vector_backend.open()


# --- lexical ---------------------------------------------------------------------------


def _docker_answers() -> bool:
    """A cheap, leak-free probe: is there a Docker engine socket that accepts a connection?"""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        return True  # a remote engine: let testcontainers find out
    try:
        with socket.socket(socket.AF_UNIX) as probe:
            probe.settimeout(1)
            probe.connect(host.removeprefix("unix://"))
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def opensearch_url() -> Iterator[str | None]:
    url = os.environ.get("MEMHIVE_TEST_OPENSEARCH_URL")
    if url or not _docker_answers():
        yield url
        return
    from testcontainers.opensearch import OpenSearchContainer

    # A strong password: OpenSearch 2.12+ refuses to install its demo security config
    # (which its image does even with the plugin disabled) with a weak one.
    container = OpenSearchContainer(OPENSEARCH_IMAGE, initial_admin_password="Memhive-test-9")
    with container:
        config = container.get_config()
        yield f"http://{config['host']}:{config['port']}"


async def _opensearch(url: str, index: str) -> OpenSearchLexicalIndex:
    return OpenSearchLexicalIndex.from_settings(
        url,
        os.environ.get("MEMHIVE_TEST_OPENSEARCH_USERNAME"),
        os.environ.get("MEMHIVE_TEST_OPENSEARCH_PASSWORD"),
        verify_certs=False,
        index=index,
    )


class CommittedWrites:
    """A tantivy lane whose every write is committed before it returns: the contract holds
    for what the index holds as for what it still keeps uncommitted."""

    def __init__(self, index: TantivyLexicalIndex) -> None:
        self._index = index

    async def upsert(self, memories) -> None:
        await self._index.upsert(memories)
        await self._index.persisted()

    async def delete(self, workspace_id, memory_ids) -> None:
        await self._index.delete(workspace_id, memory_ids)
        await self._index.persisted()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


# Group commits as configured (a test's writes stay uncommitted), every write committed,
# or a commit after every second write, while the test reads (a mix of both).
TANTIVY_COMMITS = {
    "tantivy": lambda path: TantivyLexicalIndex(path),
    "tantivy-committed": lambda path: CommittedWrites(
        TantivyLexicalIndex(path, commit_interval_s=0)
    ),
    "tantivy-mixed": lambda path: TantivyLexicalIndex(
        path, commit_interval_s=60, commit_max_writes=2
    ),
}


async def _tantivy(path: Path, commits: str) -> Any:
    return TANTIVY_COMMITS[commits](path)


@pytest.fixture(params=[*TANTIVY_COMMITS, "opensearch"])
async def lexical_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param in TANTIVY_COMMITS:
        name = request.param
        backend = Backend(name, lambda: _tantivy(tmp_path / "tantivy", name), persistent=True)
    else:
        url = request.getfixturevalue("opensearch_url")
        if not url:
            pytest.skip("no OpenSearch: set MEMHIVE_TEST_OPENSEARCH_URL or start a Docker engine")
        index = f"memhive-test-{uuid.uuid4().hex[:12]}"
        backend = Backend("opensearch", lambda: _opensearch(url, index), persistent=True)
    yield backend
    for index in backend.opened:
        await index.close()


@pytest.fixture
async def lexical_index(lexical_backend: Backend) -> Any:
    return await lexical_backend.open()
