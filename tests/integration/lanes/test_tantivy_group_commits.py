"""The tantivy lane's group commits: a write is searchable when it returns and on disk once
`persisted()` completes; until then it is scored as it will be once committed, and a
pending write of a committed memory hides the committed copy in every read. (The lexical
contract runs over all of this too: every write pending, every write committed, a mix.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import tantivy
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_domain.recall import MemoryFilter

from tests.integration.lanes.memories import a_memory

ANYWHERE = MemoryFilter(workspace_id="ws-1")
CORPUS = [
    "the billing service deploys on friday",
    "billing reports are late again this month",
    "the harbour crane needs a new engine",
    "lunch is at noon on friday in the harbour cafe",
    "a long note about billing, invoices, refunds and the billing team's weekly plans",
]


@pytest.fixture
async def index(tmp_path: Path):
    lane = TantivyLexicalIndex(tmp_path / "tantivy", commit_interval_s=1)
    await lane.ensure_ready()
    yield lane
    await lane.close()


def on_disk(path: Path, word: str) -> int:
    """Hits for `word` in what a fresh reader of the directory sees: the committed index."""
    reader = tantivy.Index.open(str(path))
    query = tantivy.Query.term_query(reader.schema, "body", word)
    return reader.searcher().search(query, 10, count=True).count


async def test_a_write_is_searchable_at_once_and_on_disk_once_persisted(
    index: TantivyLexicalIndex, tmp_path: Path
) -> None:
    memory = a_memory("the archive lives in the basement")

    await index.upsert([memory])

    assert [h.memory_id for h in await index.search("archive", ANYWHERE, 5)] == [memory.id]
    assert on_disk(tmp_path / "tantivy", "archiv") == 0
    await index.persisted()
    assert on_disk(tmp_path / "tantivy", "archiv") == 1


async def test_pending_bodies_score_as_they_will_once_committed(
    index: TantivyLexicalIndex,
) -> None:
    committed = [a_memory(body) for body in CORPUS[:3]]
    await index.upsert(committed)
    await index.persisted()
    pending = [a_memory(body) for body in CORPUS[3:]]
    await index.upsert(pending)

    before = await index.search("billing friday harbour", ANYWHERE, 10)
    await index.persisted()
    after = {
        h.memory_id: h.score for h in await index.search("billing friday harbour", ANYWHERE, 10)
    }

    # (A commit changes every committed score a little: the statistics grow.)
    assert len(before) == len(after) == 5
    for hit in (h for h in before if h.memory_id in {m.id for m in pending}):
        assert hit.score == pytest.approx(after[hit.memory_id], rel=1e-4)


async def test_a_pending_change_hides_the_committed_copy_everywhere(
    index: TantivyLexicalIndex,
) -> None:
    kept, moved, doomed = (
        a_memory(f"{word} at the harbour") for word in ("kept", "moved", "doomed")
    )
    await index.upsert([kept, moved, doomed])
    await index.persisted()

    await index.upsert([replace(moved, body="moved to the station", revision=2)])
    await index.delete("ws-1", [doomed.id])

    harbour = {h.memory_id for h in await index.search("harbour", ANYWHERE, 10)}
    listed = [p.memory_id for p in await index.list_ids(ANYWHERE, None, 10)]
    assert harbour == {kept.id}
    assert sorted(listed) == sorted([kept.id, moved.id])
    assert await index.count() == 2
    assert await index.count_matching(ANYWHERE) == 2
    assert await index.present("ws-1", [kept.id, moved.id, doomed.id]) == {kept.id, moved.id}
    await index.persisted()
    assert {h.memory_id for h in await index.search("harbour", ANYWHERE, 10)} == {kept.id}
    assert await index.count() == 2
