"""The deterministic bulletin. Tokens are counted as whitespace-separated words here, a simple
deterministic stand-in; production injects a real tokenizer through the same callable."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.bulletin import (
    RENDERER,
    Bulletin,
    BulletinBudget,
    bulletin_fingerprint,
    ids_in_bulletin,
    next_expiry,
    render_bulletin,
)
from memhive_domain.errors import InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.scopes import Scope, ScopeRef

from tests.unit.domain.memory_factory import a_memory

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
GLOBAL = ScopeRef(Scope.GLOBAL)
ROOMY = BulletinBudget(total_tokens=10_000, per_section_tokens=10_000)


def words(text: str) -> int:
    return len(text.split())


def memory(memory_id: str, kind: MemoryKind = MemoryKind.FACT, body: str = "", **changes) -> Memory:
    return a_memory(memory_id, at=T0, kind=kind, body=body or f"body of {memory_id}", **changes)


def render(memories, *, superseded=frozenset(), budget=ROOMY, at=T0, scope=GLOBAL) -> Bulletin:
    return render_bulletin(
        scope,
        memories,
        superseded=set(superseded),
        count_tokens=words,
        budget=budget,
        generated_at=at,
    )


def mixed_memories() -> list[Memory]:
    kinds = list(MemoryKind)
    return [
        memory(
            f"m{i:02d}",
            kinds[i % len(kinds)],
            importance=round((i * 37 % 10) / 10, 1),
            pinned=i % 11 == 0,
            updated_at=T0 + timedelta(minutes=i % 5),
            revision=1 + i % 3,
        )
        for i in range(40)
    ]


def section_titles(text: str) -> list[str]:
    return [
        line.split(" (")[0].removeprefix("## ")
        for line in text.splitlines()
        if line.startswith("## ")
    ]


def test_same_inputs_in_any_order_render_byte_identical() -> None:
    memories = mixed_memories()
    expected = render(memories, superseded={"m03"})
    for seed in range(10):
        shuffled = random.Random(seed).sample(memories, len(memories))
        assert render(shuffled, superseded={"m03"}) == expected


def test_text_does_not_depend_on_generation_time() -> None:
    earlier = render(mixed_memories(), at=T0)
    later = render(mixed_memories(), at=T0 + timedelta(hours=1))
    assert later.text == earlier.text
    assert later.generated_at == T0 + timedelta(hours=1)
    assert "2025" not in later.text


def test_pinned_come_first_then_typed_sections_in_fixed_order() -> None:
    memories = [
        memory("o", MemoryKind.OBSERVATION),
        memory("f", MemoryKind.FACT),
        memory("d", MemoryKind.DECISION),
        memory("i", MemoryKind.IDENTITY),
        memory("p", MemoryKind.TODO, pinned=True),
    ]
    text = render(memories).text
    assert section_titles(text) == ["Pinned", "Identity", "Decisions", "Facts", "Observations"]
    assert text.splitlines()[0] == "# Memory bulletin: global"
    assert "- [p] (todo) body of p" in text


def test_within_a_section_importance_then_recency_then_id() -> None:
    memories = [
        memory("b", importance=0.5, updated_at=T0),
        memory("a", importance=0.5, updated_at=T0),
        memory("c", importance=0.5, updated_at=T0 + timedelta(days=1)),
        memory("z", importance=0.9, updated_at=T0 - timedelta(days=9)),
    ]
    assert render(memories).shown_ids == ("z", "c", "a", "b")


def test_superseded_forgotten_expired_and_other_scopes_are_left_out() -> None:
    memories = [
        memory("kept"),
        memory("old"),
        memory("gone", forgotten=True, forgotten_at=T0),
        memory("expired", expires_at=T0 - timedelta(seconds=1)),
        memory("elsewhere", scope=Scope.PRODUCT, product_id="p1"),
    ]
    bulletin = render(memories, superseded={"old"})
    assert bulletin.shown_ids == ("kept",)
    assert ids_in_bulletin(bulletin.text) == ["kept"]
    assert bulletin.sources == (
        ("elsewhere", 1),
        ("expired", 1),
        ("gone", 1),
        ("kept", 1),
        ("old", 1),
    )


def test_product_bulletin_holds_only_that_product() -> None:
    memories = [
        memory("g"),
        memory("p1", scope=Scope.PRODUCT, product_id="p1"),
        memory("p2", scope=Scope.PRODUCT, product_id="p2"),
    ]
    bulletin = render(memories, scope=ScopeRef(Scope.PRODUCT, "p1"))
    assert bulletin.scope_key == "product:p1"
    assert bulletin.shown_ids == ("p1",)


def test_latest_revision_of_a_memory_wins() -> None:
    memories = [memory("a", body="new words", revision=2), memory("a", body="old words")]
    bulletin = render(memories)
    assert "new words" in bulletin.text and "old words" not in bulletin.text
    assert bulletin.sources == (("a", 2),)


@pytest.mark.parametrize("total", range(1, 90))
def test_total_budget_is_never_exceeded_and_counted_on_the_text(total: int) -> None:
    budget = BulletinBudget(total_tokens=total, per_section_tokens=30)
    memories = [m for m in mixed_memories() if not m.pinned]
    bulletin = render(memories, budget=budget)
    assert bulletin.token_count == words(bulletin.text) <= total
    assert not bulletin.pinned_over_budget


def test_a_text_that_exactly_meets_the_budget_is_kept_whole() -> None:
    memories = [m for m in mixed_memories() if not m.pinned]
    full = render(memories)
    exact = render(memories, budget=BulletinBudget(full.token_count, full.token_count))
    one_less = render(memories, budget=BulletinBudget(full.token_count - 1, full.token_count))
    assert exact.text == full.text
    assert len(one_less.shown_ids) == len(full.shown_ids) - 1


def test_each_section_stays_within_its_budget_and_says_n_of_m() -> None:
    memories = [memory(f"f{i}", body="one two three") for i in range(5)]
    # header "## Facts (N of 5 shown)" is 6 words, each line "- [fX] one two three" is 5
    bulletin = render(memories, budget=BulletinBudget(total_tokens=100, per_section_tokens=16))
    assert "## Facts (2 of 5 shown)" in bulletin.text
    assert bulletin.shown_ids == ("f0", "f1", "f2", "f3", "f4")[:2]
    block = bulletin.text.split("\n", 1)[1]
    assert words(block) == 16


def test_a_section_with_no_room_for_lines_still_says_it_exists() -> None:
    memories = [memory("f", body="one two three")]
    bulletin = render(memories, budget=BulletinBudget(total_tokens=10, per_section_tokens=10))
    assert bulletin.text.splitlines()[-1] == "## Facts (0 of 1 shown)"
    assert bulletin.shown_ids == ()


def test_pinned_are_never_cut_even_past_the_budget() -> None:
    pinned = [memory(f"p{i}", MemoryKind.DECISION, pinned=True) for i in range(4)]
    bulletin = render([*pinned, memory("f")], budget=BulletinBudget(5, 5))
    assert set(bulletin.shown_ids) == {"p0", "p1", "p2", "p3"}
    assert "## Pinned (4 of 4 shown)" in bulletin.text
    assert bulletin.pinned_over_budget
    assert bulletin.token_count > 5


def test_pinned_within_budget_do_not_report_an_overrun() -> None:
    bulletin = render([memory("p", pinned=True), memory("f")], budget=BulletinBudget(40, 40))
    assert bulletin.shown_ids == ("p", "f")
    assert not bulletin.pinned_over_budget


def test_each_line_is_one_trimmed_line_with_its_id() -> None:
    body = "first line\n\nsecond   line " + "x" * 500
    bulletin = render([memory("a", body=body)], budget=BulletinBudget(100, 100, line_chars=40))
    line = bulletin.text.splitlines()[-1]
    assert line.startswith("- [a] first line second line xxx")
    assert line.endswith("…")
    assert len(line.removeprefix("- [a] ")) == 40


def test_bulletin_records_renderer_sources_and_fingerprint() -> None:
    memories = mixed_memories()
    bulletin = render(memories, superseded={"m01"})
    assert bulletin.renderer == RENDERER == "deterministic/1"
    assert bulletin.sources == tuple(sorted((m.id, m.revision) for m in memories))
    assert bulletin.fingerprint == bulletin_fingerprint(memories, {"m01"}, now=T0)


def test_fingerprint_ignores_order_and_unrelated_superseded_ids() -> None:
    memories = mixed_memories()
    reference = bulletin_fingerprint(memories, {"m01"})
    assert bulletin_fingerprint(list(reversed(memories)), {"m01", "not-an-input"}) == reference


def test_fingerprint_changes_with_revision_supersession_and_expiry() -> None:
    memories = [memory("a"), memory("b", expires_at=T0 + timedelta(hours=1))]
    reference = bulletin_fingerprint(memories, set(), now=T0)
    revised = [memory("a", revision=2), memories[1]]
    assert bulletin_fingerprint(revised, set(), now=T0) != reference
    assert bulletin_fingerprint(memories, {"a"}, now=T0) != reference
    assert bulletin_fingerprint(memories, set(), now=T0 + timedelta(hours=2)) != reference


def test_next_expiry_is_the_earliest_future_one() -> None:
    memories = [
        memory("a", expires_at=T0 - timedelta(hours=1)),
        memory("b", expires_at=T0 + timedelta(hours=3)),
        memory("c", expires_at=T0 + timedelta(hours=2)),
        memory("d"),
    ]
    assert next_expiry(memories, T0) == T0 + timedelta(hours=2)
    assert next_expiry([memory("d")], T0) is None


@pytest.mark.parametrize(
    ("total", "per_section", "line_chars"),
    [(0, 10, 100), (10, 0, 100), (32_001, 10, 100), (10, 10, 5), (True, 10, 100)],
)
def test_budget_rejects_out_of_range_values(total, per_section, line_chars) -> None:
    with pytest.raises(InvalidInput):
        BulletinBudget(total, per_section, line_chars)
