"""BuildContext over fakes: the scope's bulletin first, then what it shows but had to cut and
what the query recalls, within the token budget (FakeTokenCounter: one token per word)."""

from __future__ import annotations

import pytest
from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_application.bulletins.scope_reader import ScopeReader
from memhive_domain.bulletin import BulletinBudget
from memhive_domain.context_pack import PackClass, PackedMemory
from memhive_domain.errors import InvalidInput
from memhive_domain.memory import forget
from memhive_domain.scopes import ROOT
from memhive_ports import LaneHit
from memhive_query.use_cases.bulletins import ReadBulletin
from memhive_query.use_cases.context import BuildContext
from memhive_query.use_cases.recall import RecallMemories

from tests.fakes import (
    FakeBulletinStore,
    FakeEmbedder,
    FakeLexicalIndex,
    FakePublisher,
    FakeStore,
    FakeTokenCounter,
    FakeVectorIndex,
    FixedClock,
)
from tests.unit.query.memories import MEMBER, NOW, memory, mid

LONG = " ".join(["word"] * 30)


class Rig:
    def __init__(self) -> None:
        self.store, self.lexical, clock = FakeStore(), FakeLexicalIndex(), FixedClock(NOW)
        bulletins = ScopeBulletins(
            ScopeReader(self.store, self.lexical), FakeBulletinStore(), FakeTokenCounter(),
            BulletinBudget(total_tokens=500, per_section_tokens=200), clock,
        )  # fmt: skip
        recall = RecallMemories(
            self.store, FakeVectorIndex(), self.lexical, FakeEmbedder(), FakePublisher(), clock,
            lane_weights={"vector": 1.0, "lexical": 1.0}, importance_influence=0.0,
        )  # fmt: skip
        self.context = BuildContext(
            ReadBulletin(bulletins), recall, self.store, FakeTokenCounter(), clock
        )

    def save(self, n: int, **fields: object) -> None:
        self.store.put(memory(n, **fields))
        self.lexical.hits.append(LaneHit(mid(n), 1.0))


async def test_without_a_query_the_pack_is_the_bulletin_and_nothing_is_recalled() -> None:
    rig = Rig()
    rig.save(1, body="Deploys freeze on Fridays")
    pack = await rig.context(MEMBER, None, None, None, 500)
    assert pack.text.startswith("# Memory bulletin: global") and mid(1) in pack.text
    assert (pack.selected, pack.bulletin_truncated) == ((), False)
    assert pack.tokens_used == len(pack.text.split()) <= 500
    assert rig.lexical.searches == []


async def test_what_a_truncated_bulletin_cut_comes_back_as_items_while_still_live() -> None:
    rig = Rig()
    rig.save(1, pinned=True, body=LONG)  # its line alone is over the budget
    rig.save(2, importance=0.9, body="Deploys freeze on Fridays")
    rig.save(3, body="Staging resets nightly")
    await rig.context(MEMBER, None, None, None, 500)  # the bulletin is rendered and kept
    rig.store.put(forget(memory(3, body="Staging resets nightly"), NOW))  # since forgotten

    pack = await rig.context(MEMBER, None, None, None, 30)
    assert pack.bulletin_truncated and mid(1) not in pack.text
    assert pack.selected == (PackedMemory(mid(2), PackClass.IMPORTANT),)
    assert mid(3) not in pack.text
    assert pack.tokens_used <= 30


async def test_a_query_adds_what_recall_finds_in_the_bulletins_scope() -> None:
    rig = Rig()
    rig.save(1, body="Deploys freeze on Fridays")
    await rig.context(MEMBER, None, None, None, 500)  # kept before memory 2 was saved
    rig.save(2, body="Staging resets nightly")

    pack = await rig.context(MEMBER, "staging", None, None, 500)
    assert pack.selected == (PackedMemory(mid(2), PackClass.RELEVANT),)
    [(query, searched, _)] = rig.lexical.searches
    assert (query, searched.node) == ("staging", ROOT)
    blank = await rig.context(MEMBER, "   ", None, None, 500)
    assert blank.selected == () and len(rig.lexical.searches) == 1  # a blank query recalls nothing


async def test_a_budget_out_of_range_is_refused() -> None:
    with pytest.raises(InvalidInput, match="token_budget"):
        await Rig().context(MEMBER, None, None, None, 0)
