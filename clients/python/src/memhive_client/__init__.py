"""memhive's Python client: `MemhiveClient` (sync) and `AsyncMemhiveClient` (async).

from memhive_client import MemhiveClient
with MemhiveClient("http://127.0.0.1:8080", token) as memhive:
    memhive.save("fact", "The API is served from Dublin", wait="indexed")
    for hit in memhive.recall("where is the API served?"):
        print(hit.score, hit.body)
"""

from memhive_client.client import AsyncMemhiveClient, MemhiveClient
from memhive_client.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    MemhiveError,
    NotFound,
    Problem,
    Unauthorized,
    Unavailable,
)
from memhive_client.models import (
    ActivityEntry,
    ActivityPage,
    Bulletin,
    ContextPack,
    DeadLetter,
    Edge,
    ForgetResult,
    KvDeleted,
    KvEntry,
    KvPage,
    LinkResult,
    Memory,
    MemoryPage,
    RecalledMemory,
    Revision,
    SaveResult,
)
from memhive_client.retry import RetryPolicy

__all__ = [
    "ActivityEntry",
    "ActivityPage",
    "AsyncMemhiveClient",
    "Bulletin",
    "Conflict",
    "ContextPack",
    "DeadLetter",
    "Edge",
    "Forbidden",
    "ForgetResult",
    "InvalidRequest",
    "KvDeleted",
    "KvEntry",
    "KvPage",
    "LinkResult",
    "MemhiveClient",
    "MemhiveError",
    "Memory",
    "MemoryPage",
    "NotFound",
    "Problem",
    "RecalledMemory",
    "RetryPolicy",
    "Revision",
    "SaveResult",
    "Unauthorized",
    "Unavailable",
]
