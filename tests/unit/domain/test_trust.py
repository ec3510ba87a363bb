"""Trust and staleness: documented weights, flags lower trust, age raises staleness, and recall
ranks a flagged or stale memory below an equally relevant fresh trusted one."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from memhive_domain.curation import AuthorKind, Curation, Flag, FlagKind
from memhive_domain.fusion import FusedHit
from memhive_domain.kinds import MemoryKind
from memhive_domain.ranking import rank_recalled
from memhive_domain.recall import MemoryFilter
from memhive_domain.sources import Source
from memhive_domain.trust import MIN_TRUST, score, staleness_of, trust_of

from tests.unit.query.memories import NOW, memory


def flag(kind: FlagKind, n: int = 1) -> Flag:
    return Flag(f"f{n}", kind, "because", "u1", NOW)


def curated(n: int = 1, **state: object):
    return replace(memory(n, days_ago=0), curation=Curation(**state))


def test_author_sets_the_base_and_confirmations_and_corrections_raise_it_within_bounds() -> None:
    assert trust_of(curated(author_kind=AuthorKind.USER)) == 0.9
    assert trust_of(curated(author_kind=AuthorKind.AGENT)) == 0.8
    assert trust_of(replace(curated(), source=Source.ISSUE)) == 0.85  # older record, upstream
    assert trust_of(curated()) == 0.8  # older record from an agent's source: the least trusted
    assert round(trust_of(curated(author_kind=AuthorKind.AGENT, confirmations=2)), 6) == 0.9
    assert trust_of(curated(author_kind=AuthorKind.USER, confirmations=9, corrections=9)) == 1.0


def test_flags_lower_trust_but_never_to_zero() -> None:
    user = AuthorKind.USER
    assert round(trust_of(curated(author_kind=user, flags=(flag(FlagKind.UNVERIFIED),))), 6) == 0.7
    wrong_twice = (flag(FlagKind.WRONG, 1), flag(FlagKind.WRONG, 2))
    assert trust_of(curated(author_kind=user, flags=wrong_twice)) == MIN_TRUST


def test_staleness_grows_with_the_kind_half_life_and_freshens_on_access_or_confirmation() -> None:
    todo = replace(memory(1, days_ago=30), kind=MemoryKind.TODO)
    assert round(staleness_of(todo, NOW), 3) == 0.5
    assert staleness_of(replace(todo, last_accessed_at=NOW), NOW) == 0.0
    confirmed = replace(todo, curation=Curation(last_confirmed_at=NOW - timedelta(days=30)))
    assert round(staleness_of(confirmed, NOW), 3) == 0.5
    assert staleness_of(curated(flags=(flag(FlagKind.OUTDATED),)), NOW) == 1.0
    assert score(curated(), NOW).staleness == 0.0


def test_recall_ranks_flagged_and_stale_memories_below_an_equally_relevant_fresh_one() -> None:
    fresh = curated(1, author_kind=AuthorKind.USER)
    flagged = curated(2, author_kind=AuthorKind.USER, flags=(flag(FlagKind.WRONG),))
    stale = replace(memory(3, days_ago=400), curation=Curation(author_kind=AuthorKind.USER))
    records = {m.id: m for m in (fresh, flagged, stale)}
    hits = [FusedHit(m.id, 1.0, {"lexical": 1}) for m in (flagged, stale, fresh)]
    ranked = rank_recalled(
        hits, records, memory_filter=MemoryFilter(workspace_id="ws"), now=NOW, limit=3
    )
    assert [r.memory.id for r in ranked] == [fresh.id, stale.id, flagged.id]


def test_a_clearly_more_relevant_memory_still_wins_over_a_fresher_one() -> None:
    old = replace(memory(1, days_ago=200), curation=Curation(author_kind=AuthorKind.AGENT))
    new = curated(2, author_kind=AuthorKind.USER)
    hits = [FusedHit(old.id, 1.0, {"lexical": 1}), FusedHit(new.id, 0.5, {"lexical": 2})]
    ranked = rank_recalled(
        hits,
        {old.id: old, new.id: new},
        memory_filter=MemoryFilter(workspace_id="ws"),
        now=NOW,
        limit=2,
    )
    assert ranked[0].memory.id == old.id
