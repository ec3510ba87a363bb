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
    AuditEntry,
    AuditPage,
    Bulletin,
    ConsolidateResult,
    ContextPack,
    DeadLetter,
    Edge,
    Flag,
    FlagResult,
    ForgetResult,
    IssuedToken,
    LinkResult,
    Memory,
    MemoryPage,
    Product,
    RecalledMemory,
    Revision,
    SaveResult,
    Skill,
    SkillCandidates,
    TokenInfo,
    UpdateResult,
)
from memhive_client.retry import RetryPolicy

__all__ = [
    "AsyncMemhiveClient",
    "AuditEntry",
    "AuditPage",
    "Bulletin",
    "Conflict",
    "ConsolidateResult",
    "ContextPack",
    "DeadLetter",
    "Edge",
    "Flag",
    "FlagResult",
    "Forbidden",
    "ForgetResult",
    "InvalidRequest",
    "IssuedToken",
    "LinkResult",
    "MemhiveClient",
    "MemhiveError",
    "Memory",
    "MemoryPage",
    "NotFound",
    "Problem",
    "Product",
    "RecalledMemory",
    "RetryPolicy",
    "Revision",
    "SaveResult",
    "Skill",
    "SkillCandidates",
    "TokenInfo",
    "Unauthorized",
    "Unavailable",
    "UpdateResult",
]
