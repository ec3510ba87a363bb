"""Claude Code's auto-memory files read as memories: a file is one memory, its front matter
its kind and tags, the index no memory at all, and any text readable."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_domain.exchange.claude_memory import memory_type, parse_claude_memory
from memhive_domain.exchange.formats import ImportFormat, format_of
from memhive_domain.kinds import MemoryKind
from memhive_domain.scopes import ScopeRef, parse_scope_path

BASE = parse_scope_path("product:ios", [])
assert isinstance(BASE, ScopeRef)


def one(text: str, path: str = "/h/.claude/projects/p/memory/m.md"):
    [item] = parse_claude_memory(path, text, BASE).items
    return item


@pytest.mark.parametrize(
    ("kind_of", "kind"),
    [
        ("user", MemoryKind.IDENTITY),
        ("feedback", MemoryKind.PREFERENCE),
        ("reference", MemoryKind.FACT),
        ("project", MemoryKind.DECISION),
    ],  # fmt: skip
)
def test_the_type_gives_the_kind_and_a_tag(kind_of: str, kind: MemoryKind) -> None:
    text = (
        f"---\nname: x\ndescription: We decided to use uv\nmetadata:\n  type: {kind_of}\n---\nBody."
    )
    item = one(text)
    assert item.draft.kind == kind and item.draft.tags == (
        "claude-memory",
        f"claude-memory:{kind_of}",
    )
    assert item.draft.body == "We decided to use uv\n\nBody." and item.line == 7
    assert item.draft.scope_path == "product:ios" and item.draft.source_ref == "claude-memory/x"
    assert memory_type(text) == kind_of


def test_a_description_the_text_already_says_is_not_said_twice() -> None:
    text = "---\nname: 'Deploy Days!'\ndescription: \"Tuesdays\"\ntype: project\n---\nDeploys: Tuesdays"
    item = one(text)
    assert item.draft.body == "Deploys: Tuesdays"
    assert item.draft.source_ref == "claude-memory/deploy-days"
    assert item.kept is not None and item.kept.value == {"name": "deploy-days", "type": "project"}


def test_without_front_matter_the_whole_file_is_an_untyped_memory() -> None:
    for text in ("Plain note about the cache", "---\nname: never closed\nPlain note"):
        item = one(text, "/x/notes.md")
        assert item.draft.tags == ("claude-memory",) and item.draft.body == text.strip()
        assert item.draft.source_ref == "claude-memory/notes" and memory_type(text) == ""


def test_the_index_and_an_empty_file_are_no_memory() -> None:
    index = parse_claude_memory("/x/memory/MEMORY.md", "- [A](a.md) — a", BASE)
    empty = parse_claude_memory("/x/memory/a.md", "---\ntype: user\n---\n \n", BASE)
    assert index.items == () and index.notes and empty.items == () and empty.notes


def test_the_same_name_in_two_places_is_kept_apart() -> None:
    text = "---\nname: n\ntype: project\n---\nA fact."
    alice, bob = one(text, "/home/alice/m/n.md"), one(text, "/home/bob/m/n.md")
    assert alice.kept is not None and bob.kept is not None
    assert alice.kept.key != bob.kept.key and alice.draft.source_ref == bob.draft.source_ref


def test_a_file_of_claude_codes_auto_memory_is_known_by_its_path() -> None:
    assert (
        format_of("/home/a/.claude/projects/-home-a-app/memory/x.md") is ImportFormat.CLAUDE_MEMORY
    )
    assert format_of(".claude/projects/p/memory/MEMORY.md") is ImportFormat.CLAUDE_MEMORY
    assert format_of("/home/a/app/CLAUDE.md") is ImportFormat.MARKDOWN
    assert format_of("/home/a/.claude/projects/p/x.md") is ImportFormat.MARKDOWN


@given(st.text(max_size=600), st.text(max_size=40))
def test_any_text_reads_as_at_most_one_memory(text: str, name: str) -> None:
    found = parse_claude_memory(f"/m/{name}.md", text, BASE)
    assert len(found.items) <= 1
    for item in found.items:
        assert item.draft.body.strip() and item.draft.source_ref.startswith("claude-memory/")
