"""Following what the first hits name (issue 27, multi-hop questions): the evidence of
"Which cities has Jon visited?" is spread over turns that share no word with each other,
but the best hits name what the others are about ("Rome", "Paris"). So recall takes the
names the top hits mention (their mentions, read at write time), less the people the
question names and the speakers of the candidates (named everywhere in their thread, so
they tell nothing), and asks the BM25 lane once more for them; what that finds joins the
lane's candidates. Bounded: the names of FOLLOW_TOP hits, at most MAX_FOLLOWED of them,
one more lexical search. Measured in docs/benchmarks.md ("Recall past 0.70").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memhive_domain.mentions import Mentions

DEFAULT_FOLLOW_TOP = 3  # the best hits whose names are followed
MAX_FOLLOWED = 8  # names in the one extra query
# What the names find joins the lane at most at this share of the lane's best score: a
# memory reached only through a name the hits mention stays below the best direct match
# (unscaled, one matching a rare name could top the lane and the ranking).
FOLLOWED_SHARE = 0.8


def names_to_follow(
    ranked: Sequence[str],
    mentions: Mapping[str, Mentions],
    asked: frozenset[str],
    top: int = DEFAULT_FOLLOW_TOP,
) -> tuple[str, ...]:
    """The names the first `top` of `ranked` mention, in order, that the question did not
    ask about and that no candidate's speaker bears."""
    speakers = {m.speaker.lower() for m in mentions.values() if m.speaker}
    followed: dict[str, None] = {}
    for memory_id in ranked[:top]:
        said = mentions.get(memory_id)
        for name in said.people if said else ():
            if name not in asked and name not in speakers:
                followed.setdefault(name)
    return tuple(followed)[:MAX_FOLLOWED]


def with_followed(
    hits: Sequence[tuple[str, float]],
    found: Sequence[tuple[str, float]],
    share: float = FOLLOWED_SHARE,
) -> list[tuple[str, float]]:
    """A lane's hits and what the followed names found that it had not, its scores scaled
    so that its best is `share` x the lane's best; by score. A lane that found nothing
    stays empty: following extends what it matched, it does not stand in for it (a lane
    of followed hits alone would outweigh the vector lane's answer)."""
    if not hits:
        return []
    have = {memory_id for memory_id, _ in hits}
    best_found = max((s for _, s in found), default=0.0)
    best_hit = max(s for _, s in hits)
    scale = share * best_hit / best_found if best_found > 0 else 0.0
    added = [(i, s * scale) for i, s in found if i not in have]
    return sorted([*hits, *added], key=lambda hit: -hit[1])
