"""Ports: small Protocols, one capability each. Adapters in memhive_adapters implement them;
fakes in tests/fakes.py implement them for unit tests."""

from memhive_ports.audit import AuditLog, AuditPage
from memhive_ports.clock import Clock
from memhive_ports.embedder import BackgroundEmbedder, Embedder, EncodedVector, ReaderEmbedder
from memhive_ports.faults import BusUnavailable, InsufficientStorage, RetryLater
from memhive_ports.health import HealthProbe, ServiceProcesses
from memhive_ports.identity import (
    CodeRefused,
    IdentityProvider,
    IdentityVerifier,
    ProviderEndpoints,
    ProviderUnavailable,
    SignInRejected,
)
from memhive_ports.lanes import LaneHit, LexicalIndex, VectorIndex
from memhive_ports.link_classifier import EdgeProposal, LinkClassifier
from memhive_ports.llm import JsonChat, JsonReply, LlmUnavailable, MalformedOutput
from memhive_ports.poison import Poison
from memhive_ports.publisher import EventPublisher
from memhive_ports.reranker import Reranker
from memhive_ports.scheduler import CommandScheduler
from memhive_ports.spend import SpendCounters
from memhive_ports.store import MemoryReader, MemoryStore, StoredMemory
from memhive_ports.term_weights import DocumentTerms, QueryTerms, TermWeights
from memhive_ports.token_commands import TokenCommands, TokenRequest, TokenServiceUnavailable
from memhive_ports.token_counter import TokenCounter
from memhive_ports.tokens import TokenDirectory

__all__ = [
    "AuditLog",
    "AuditPage",
    "BackgroundEmbedder",
    "BusUnavailable",
    "Clock",
    "CommandScheduler",
    "EdgeProposal",
    "Embedder",
    "EncodedVector",
    "CodeRefused",
    "DocumentTerms",
    "HealthProbe",
    "IdentityProvider",
    "InsufficientStorage",
    "IdentityVerifier",
    "ProviderEndpoints",
    "ProviderUnavailable",
    "ServiceProcesses",
    "SignInRejected",
    "EventPublisher",
    "JsonChat",
    "JsonReply",
    "LaneHit",
    "LexicalIndex",
    "LinkClassifier",
    "LlmUnavailable",
    "MalformedOutput",
    "MemoryReader",
    "MemoryStore",
    "Poison",
    "QueryTerms",
    "ReaderEmbedder",
    "Reranker",
    "RetryLater",
    "TermWeights",
    "SpendCounters",
    "StoredMemory",
    "TokenCommands",
    "TokenCounter",
    "TokenRequest",
    "TokenServiceUnavailable",
    "TokenDirectory",
    "VectorIndex",
]
