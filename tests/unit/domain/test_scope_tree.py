"""The scope tree: paths, what each principal reads and writes, inherited visibility."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import MemoryDraft, create_memory, inheriting_product
from memhive_domain.principals import Principal, Role
from memhive_domain.products import define_product
from memhive_domain.scope_tree import can_read, can_write, default_visibility, tree_view
from memhive_domain.scopes import ROOT, Scope, ScopeRef, Visibility, parse_scope_path

BOB = "product:ios/team:mobile/agent:bob"
EVE = "product:ios/team:mobile/agent:eve"


def node(path: str) -> ScopeRef:
    parsed = parse_scope_path(path, [])
    assert parsed is not None, path
    return parsed


def who(role: Role = Role.MEMBER, home: str = "global") -> Principal:
    return Principal("ws", "someone", role, home)


@pytest.mark.parametrize(
    "path",
    [
        "global",
        "product:ios",
        "product:ios/team:mobile",
        BOB,
        "team:ops",
        "agent:carl",
        "product:ios/agent:bob",
        "team:ops/agent:x",
        "product:a:b.c/team:t",
    ],
)
def test_a_valid_path_round_trips(path: str) -> None:
    assert node(path).key == path


@pytest.mark.parametrize(
    "path",
    [
        "",
        "product:",
        "team:mobile/product:ios",
        "agent:a/team:b",
        "product:ios/team:a/team:b",
        "Product:ios",
        "product:ios/",
        "/product:ios",
        "zone:x",
        "team:a b",
        "global/team:x",
        "team:" + "x" * 65,
        "agent:bob/agent:eve",
    ],
)
def test_an_invalid_path_is_one_problem_naming_the_field(path: str) -> None:
    problems: list[FieldProblem] = []
    assert parse_scope_path(path, problems, "home") is None
    assert [p.field for p in problems] == ["home"]


def test_lineage_runs_from_the_root_to_the_node() -> None:
    assert [n.key for n in node(BOB).lineage] == [
        "global",
        "product:ios",
        "product:ios/team:mobile",
        BOB,
    ]
    assert node("team:ops").parent == ROOT and node("team:ops").scope is Scope.GLOBAL
    assert ROOT.parent is None and node(BOB).is_local and not node("team:ops").is_local


READS = {
    # (role, home): nodes read, of: global, ios, mobile, bob, eve, android, ops, carl
    (Role.MEMBER, "global"): {
        "global",
        "product:ios",
        "product:ios/team:mobile",
        "product:android",
        "team:ops",
    },
    (Role.ADMIN, "global"): {
        "global",
        "product:ios",
        "product:ios/team:mobile",
        BOB,
        EVE,
        "product:android",
        "team:ops",
        "agent:carl",
    },
    (Role.MEMBER, "product:ios"): {"global", "product:ios", "product:ios/team:mobile"},
    (Role.AGENT, BOB): {"global", "product:ios", "product:ios/team:mobile", BOB},
    (Role.AGENT, "product:ios/team:mobile"): {"global", "product:ios", "product:ios/team:mobile"},
    (Role.ADMIN, "product:ios/team:mobile"): {
        "global",
        "product:ios",
        "product:ios/team:mobile",
        BOB,
        EVE,
    },
    (Role.VIEWER, "global"): {
        "global",
        "product:ios",
        "product:ios/team:mobile",
        "product:android",
        "team:ops",
    },
    (Role.AGENT, "agent:carl"): {"global", "agent:carl"},
}
NODES = [
    "global",
    "product:ios",
    "product:ios/team:mobile",
    BOB,
    EVE,
    "product:android",
    "team:ops",
    "agent:carl",
]


@pytest.mark.parametrize(("role", "home"), list(READS))
def test_reads_its_lineage_and_its_subtree_but_not_other_agents_local(role, home) -> None:
    principal = who(role, home)
    assert {n for n in NODES if can_read(principal, node(n))} == READS[(role, home)]


def test_global_is_written_only_by_admins_and_root_homed_principals() -> None:
    assert can_write(who(Role.ADMIN, "product:ios"), ROOT)
    assert can_write(who(Role.MEMBER, "global"), ROOT)
    assert can_write(who(Role.AGENT, "global"), ROOT)
    assert not can_write(who(Role.AGENT, BOB), ROOT)
    assert not can_write(who(Role.MEMBER, "product:ios"), ROOT)
    assert not can_write(who(Role.VIEWER, "global"), ROOT)


def test_an_agent_writes_its_local_node_and_its_team_not_a_siblings() -> None:
    bob = who(Role.AGENT, BOB)
    assert can_write(bob, node(BOB))
    assert can_write(bob, node("product:ios/team:mobile"))
    assert not can_write(bob, node(EVE))
    assert not can_write(bob, node("product:android"))
    assert not can_write(who(Role.MEMBER, "global"), node(BOB))
    assert can_write(who(Role.ADMIN, "global"), node(BOB))


def test_a_view_is_what_can_read_says() -> None:
    view = tree_view(who(Role.AGENT, BOB))
    assert view.admits(node("product:ios/team:mobile")) and not view.admits(node(EVE))


@pytest.mark.parametrize(
    ("path", "product", "expected"),
    [
        ("global", None, Visibility.PUBLIC),
        ("global", Visibility.PRIVATE, Visibility.PUBLIC),
        ("product:ios", None, Visibility.PRIVATE),
        ("product:ios", Visibility.PUBLIC, Visibility.PUBLIC),
        ("product:ios/team:mobile", Visibility.PUBLIC, Visibility.PUBLIC),
        (BOB, Visibility.PUBLIC, Visibility.PRIVATE),
        ("team:ops", None, Visibility.PRIVATE),
    ],
)
def test_default_visibility_follows_hives_rule(path, product, expected) -> None:
    assert default_visibility(node(path), product) is expected


NOW = datetime(2026, 1, 1, tzinfo=UTC)


def created(principal: Principal, **fields: object):
    draft = MemoryDraft(kind="fact", body="a fact", **fields)  # type: ignore[arg-type]
    return create_memory(draft, memory_id="m", principal=principal, now=NOW)


def test_a_draft_naming_no_node_lands_at_the_principals_home() -> None:
    assert created(who(Role.AGENT, BOB)).scope_ref == node(BOB)
    assert created(who()).scope_ref == ROOT
    at_team = created(who(), scope_path="product:ios/team:mobile", product_id="ios")
    assert (at_team.scope, at_team.product_id, at_team.team_id) == (Scope.PRODUCT, "ios", "mobile")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"scope_path": "product:ios", "product_id": "android"}, "scope_path"),
        ({"scope_path": "team:ops", "scope": "product"}, "scope_path"),
        ({"scope_path": "nowhere"}, "scope_path"),
        ({"scope": "product"}, "product_id"),
    ],
)
def test_a_node_named_badly_is_a_422_naming_the_field(fields: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        created(who(), **fields)
    assert [p.field for p in raised.value.problems] == [field]


def test_a_product_draft_without_visibility_asks_for_its_product() -> None:
    assert inheriting_product(MemoryDraft("fact", "x", product_id="ios"), who()) == "ios"
    assert inheriting_product(MemoryDraft("fact", "x", visibility="public"), who()) is None
    assert inheriting_product(MemoryDraft("fact", "x", scope_path=BOB), who()) is None
    assert inheriting_product(MemoryDraft("fact", "x"), who(home="product:ios")) == "ios"
    draft = MemoryDraft("fact", "x", product_id="ios")
    memory = create_memory(
        draft, memory_id="m", principal=who(), now=NOW, product_visibility=Visibility.PUBLIC
    )
    assert memory.visibility is Visibility.PUBLIC


def test_a_product_definition_reports_every_problem() -> None:
    with pytest.raises(InvalidInput) as raised:
        define_product("-bad", "secret", "x" * 201, principal=who(), now=NOW)
    assert [p.field for p in raised.value.problems] == ["product_id", "visibility", "name"]
    product = define_product("ios", "public", " iOS ", principal=who(), now=NOW)
    assert (product.name, product.visibility, product.updated_by) == (
        "iOS",
        Visibility.PUBLIC,
        "someone",
    )
