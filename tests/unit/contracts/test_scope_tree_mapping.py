"""The scope tree on the wire: team and agent nodes travel in Memory (fields 22, 23), bulletins
and bulletin keys; an unspecified visibility is left to inheritance."""

from __future__ import annotations

from datetime import UTC, datetime

from memhive.v1 import memory_pb2 as pb
from memhive_adapters.nats.kv_bulletin_store import scope_token
from memhive_contracts.bulletin_mapping import bulletin_from_pb, bulletin_to_pb, scope_of
from memhive_contracts.mapping import draft_from_pb, memory_from_pb, memory_to_pb
from memhive_domain.bulletin import Bulletin
from memhive_domain.memory import create_memory
from memhive_domain.principals import Principal
from memhive_domain.scopes import ROOT, Scope, ScopeRef, Visibility

NOW = datetime(2026, 1, 1, tzinfo=UTC)
BOB = ScopeRef(Scope.PRODUCT, "ios", "mobile", "bob")


def test_a_memory_keeps_its_node_through_protobuf() -> None:
    message = pb.Memory(kind=pb.MEMORY_KIND_FACT, body="x", scope=pb.SCOPE_PRODUCT)
    message.product_id, message.team_id, message.agent_id = "ios", "mobile", "bob"
    draft = draft_from_pb(message)
    assert draft.scope_path == BOB.key and draft.visibility is None  # unspecified: inherited
    memory = create_memory(draft, memory_id="m", principal=Principal("w", "u"), now=NOW)
    assert memory.scope_ref == BOB and memory.visibility is Visibility.PRIVATE  # LOCAL
    assert memory_from_pb(memory_to_pb(memory)).scope_ref == BOB


def test_a_team_under_the_root_is_global_at_the_first_level() -> None:
    message = pb.Memory(kind=pb.MEMORY_KIND_FACT, body="x", scope=pb.SCOPE_GLOBAL, team_id="ops")
    memory = create_memory(
        draft_from_pb(message), memory_id="m", principal=Principal("w", "u"), now=NOW
    )
    assert memory.scope_ref.key == "team:ops" and memory.scope is Scope.GLOBAL


def test_bulletins_of_nested_nodes_keep_their_node_and_a_key_of_their_own() -> None:
    bulletin = Bulletin(BOB.key, "text", 1, NOW, "deterministic/1", (), (), "f", False)
    message = bulletin_to_pb(bulletin, "w", BOB)
    assert scope_of(message) == BOB and bulletin_from_pb(message).scope_key == BOB.key
    team = ScopeRef(Scope.PRODUCT, "ios", "mobile")
    tokens = {scope_token(n) for n in (ROOT, ScopeRef(Scope.PRODUCT, "ios"), team, BOB)}
    assert len(tokens) == 4 and {"global", "p_aW9z"} < tokens  # legacy keys unchanged
    assert all("." not in t and ":" not in t and "/" not in t for t in tokens)
