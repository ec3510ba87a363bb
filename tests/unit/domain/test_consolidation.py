"""Consolidation's draft: attributes come from the sources unless given; private wins; one
node only; 2..20 distinct ids."""

from __future__ import annotations

from dataclasses import replace

import pytest
from memhive_domain.consolidation import (
    ConsolidationRequest,
    consolidated_draft,
    source_ids,
    summary_messages,
)
from memhive_domain.errors import InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.scopes import Scope, Visibility

from tests.unit.query.memories import memory, mid


def test_the_draft_takes_the_sources_node_kind_highest_importance_tags_and_privacy() -> None:
    a = memory(1, importance=0.4, tags=("a",), visibility=Visibility.PUBLIC)
    b = memory(2, importance=0.9, tags=("b", "a"), visibility=Visibility.PRIVATE, pinned=True)
    draft = consolidated_draft([a, b], ConsolidationRequest([a.id, b.id]), "merged")
    assert (draft.kind, draft.importance, draft.tags) == (a.kind, 0.9, ("a", "b"))
    assert (draft.visibility, draft.pinned, draft.scope_path) == (
        Visibility.PRIVATE,
        True,
        a.scope_ref.key,
    )
    given = ConsolidationRequest([a.id, b.id], kind="decision", importance=0.1, tags=["x"])
    draft = consolidated_draft([a, b], given, "merged")
    assert (draft.kind, draft.importance, draft.tags) == ("decision", 0.1, ("x",))


def test_mixed_kinds_need_a_kind_and_mixed_nodes_are_refused() -> None:
    a, b = memory(1), replace(memory(2), kind=MemoryKind.TODO)
    with pytest.raises(InvalidInput, match="kind"):
        consolidated_draft([a, b], ConsolidationRequest([a.id, b.id]), "x")
    c = replace(memory(3), scope=Scope.PRODUCT, product_id="ios")
    with pytest.raises(InvalidInput, match="ids"):
        consolidated_draft([a, c], ConsolidationRequest([a.id, c.id]), "x")


def test_ids_are_distinct_and_bounded() -> None:
    assert source_ids(ConsolidationRequest([mid(1), mid(2), mid(1)])) == [mid(1), mid(2)]
    for ids in ([mid(1)], [mid(1), mid(1)], [mid(n) for n in range(21)], "not a list"):
        with pytest.raises(InvalidInput, match="ids"):
            source_ids(ConsolidationRequest(ids))


def test_the_summary_prompt_lists_bodies_without_ids() -> None:
    a, b = memory(1, body="alpha"), memory(2, body="beta")
    text = summary_messages([a, b])[1]["content"]
    assert "alpha" in text and "beta" in text and a.id not in text
