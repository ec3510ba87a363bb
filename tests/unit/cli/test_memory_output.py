"""What `memhive save|recall|get|list|forget` print (memhive_cli/memory_output.py)."""

from __future__ import annotations

import json

from memhive_client import ForgetResult, Memory, MemoryPage, RecalledMemory, SaveResult

from memhive_cli import memory_output as out

MEMORY = {
    "id": "m-1",
    "kind": "decision",
    "body": "The iOS app targets Swift 6",
    "importance": 0.7,
    "pinned": False,
    "tags": ["ios"],
    "scope": "product",
    "product_id": "ios",
    "scope_path": "product:ios",
    "visibility": "private",
    "source": "agent",
    "source_ref": None,
    "created_by": "ada",
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
    "expires_at": None,
    "revision": 1,
    "access_count": 1,
    "last_accessed_at": None,
    "trust": 0.8,
    "staleness": 0.1,
}


def _hit(**more) -> RecalledMemory:
    return RecalledMemory.model_validate(MEMORY | {"score": 1.0, "lane_ranks": {}} | more)


def test_a_recall_shows_confidence_kind_scope_id_and_the_body() -> None:
    text = out.recalled_text([_hit(confidence=0.42, replaces=["m-0"])])
    header, row = text.splitlines()
    assert header.split() == ["CONFIDENCE", "KIND", "SCOPE", "ID", "MEMORY"]
    assert row.split()[:4] == ["0.42", "decision", "product:ios", "m-1"]
    assert row.endswith("The iOS app targets Swift 6  [replaces m-0]")


def test_nothing_recalled_says_so_and_how_to_see_weaker_matches() -> None:
    assert out.recalled_text([]).startswith("No memory matches")
    assert "--min-confidence 0" in out.recalled_text([])


def test_a_long_body_is_cut_in_a_row_and_whole_in_get() -> None:
    body = "word " * 60
    [row] = out.recalled_text([_hit(body=body)]).splitlines()[1:]
    assert row.endswith("…") and len(row.split("m-1", 1)[1].strip()) == out.BODY_CHARS
    memory = Memory.model_validate(MEMORY | {"body": body})
    assert out.memory_text(memory).endswith(body)


def test_a_page_counts_what_it_shows_and_says_how_to_go_on() -> None:
    page = MemoryPage(items=[Memory.model_validate(MEMORY)], next_cursor="c2")
    lines = out.page_text(page).splitlines()
    assert lines[-1] == "1 memory shown; more: memhive list --cursor c2 (same filters)"
    two = MemoryPage(items=[Memory.model_validate(MEMORY)] * 2, next_cursor=None)
    assert out.page_text(two).splitlines()[-1] == "2 memories shown"
    assert out.page_text(MemoryPage(items=[], next_cursor=None)) == "No memories here."


def test_save_and_forget_say_what_happened() -> None:
    memory = Memory.model_validate(MEMORY)
    assert out.saved_text(SaveResult(id="m-1", status="indexed", memory=memory)) == (
        "saved m-1 (product:ios, indexed)"
    )
    assert out.saved_text(SaveResult(id="m-1", status="duplicate", memory=memory)).startswith(
        "already saved as m-1"
    )
    assert out.forgotten_text(ForgetResult(id="m-1", status="forgotten")).startswith("forgot m-1")


def test_get_names_each_detail_once_with_plurals_right() -> None:
    text = out.memory_text(Memory.model_validate(MEMORY))
    assert text.splitlines()[0] == "m-1"
    assert "recalled    1 time" in text and "(0 flags)" in text


def test_json_is_the_apis_answer() -> None:
    hit = _hit(confidence=0.3)
    answer = json.loads(out.as_json({"results": [hit]}))
    assert answer["results"][0]["id"] == "m-1" and answer["results"][0]["confidence"] == 0.3
    assert json.loads(out.as_json(Memory.model_validate(MEMORY)))["scope_path"] == "product:ios"
