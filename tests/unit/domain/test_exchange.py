"""The import parsers and export renderers (memhive_domain.exchange): what each file becomes,
the lines bad ones are refused at, and that no input makes a parser fail any other way."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from memhive_domain.curation import AuthorKind, Curation, Flag, FlagKind
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.exchange import markdown_files
from memhive_domain.exchange.formats import ImportFormat, format_of, parse_import
from memhive_domain.exchange.items import BadImportFile
from memhive_domain.exchange.kinds import guess_kind
from memhive_domain.exchange.markdown_export import file_name, render_scope_files
from memhive_domain.exchange.markdown_files import origin_tag, parse_memory_file
from memhive_domain.exchange.mem0_json import parse_get_all
from memhive_domain.exchange.memhive_jsonl import (
    dumps,
    edge_line,
    header_line,
    memory_line,
    moved_id,
    parse_export,
    revision_line,
)
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MAX_BODY_CHARS
from memhive_domain.revisions import Revision
from memhive_domain.scopes import ROOT, Scope, ScopeRef, Visibility

from tests.unit.domain.markdown_lines import heading_lines
from tests.unit.domain.memory_factory import a_memory

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SHOP = ScopeRef(Scope.PRODUCT, "shop")


def a_record(**changes):
    memory = a_memory(str(uuid.uuid4()), at=NOW - timedelta(days=3), **changes)
    return replace(memory, workspace_id="ws")


def export_text(*lines: dict, workspace: str = "ws") -> str:
    return dumps(header_line(workspace, NOW, None)) + "".join(dumps(line) for line in lines)


# --- memhive's JSONL ----------------------------------------------------------------------


def test_a_record_comes_back_with_every_field() -> None:
    flag = Flag("f1", FlagKind.OUTDATED, "moved", "ann", NOW - timedelta(days=1))
    memory = a_record(
        kind=MemoryKind.DECISION,
        body="We deploy on Tuesdays",
        importance=0.9,
        pinned=True,
        tags=("ops", "deploy"),
        scope=Scope.PRODUCT,
        product_id="shop",
        team_id="web",
        visibility=Visibility.PUBLIC,
        source_ref="chat-1:4",
        occurred_at=NOW - timedelta(days=10),
        expires_at=NOW + timedelta(days=10),
        updated_at=NOW - timedelta(days=1),
        revision=4,
        access_count=7,
        last_accessed_at=NOW - timedelta(hours=1),
        curation=Curation((flag,), 2, NOW - timedelta(days=2), 1, None, AuthorKind.USER),
    )
    parsed = parse_export(export_text(memory_line(memory)), "ws", NOW)
    assert [i.restored for i in parsed.items] == [memory]
    assert parsed.items[0].line == 2


def test_edges_and_earlier_revisions_are_read_with_their_memory() -> None:
    new, old = a_record(revision=2), a_record()
    edge = Edge(new.id, old.id, EdgeKind.UPDATES, 1.0, "ann", CreatorKind.USER, "why", NOW)
    first = Revision(replace(new, revision=1, body="first words"), "saved", "e1", "c1")
    text = export_text(
        memory_line(new),
        memory_line(old),
        edge_line(edge),
        revision_line(first),
        revision_line(Revision(new, "saved", "e2", "c2")),
    )
    parsed = parse_export(text, "ws", NOW)
    assert [e.edge for e in parsed.edges] == [edge]
    assert [m.body for m in parsed.items[0].history] == ["first words"]  # earlier ones only
    assert parsed.items[1].history == ()


def test_into_another_workspace_every_id_moves_the_same_way() -> None:
    new, old = a_record(), a_record()
    edge = Edge(new.id, old.id, EdgeKind.RELATED_TO, 0.5, "ann", CreatorKind.AGENT, "", NOW)
    text = export_text(memory_line(new), memory_line(old), edge_line(edge), workspace="other")
    parsed = parse_export(text, "ws", NOW)
    assert [i.restored.id for i in parsed.items] == [moved_id("ws", new.id), moved_id("ws", old.id)]
    assert (parsed.edges[0].edge.src_id, parsed.edges[0].edge.dst_id) == (
        moved_id("ws", new.id),
        moved_id("ws", old.id),
    )
    assert moved_id("ws", new.id) != moved_id("ws2", new.id)


def test_every_bad_line_is_named_and_nothing_is_returned() -> None:
    good = a_record()
    bad_kind = memory_line(a_record()) | {}
    bad_kind["memory"] = dict(bad_kind["memory"], kind="rumour", body="")
    text = export_text(memory_line(good), bad_kind, {"type": "wat"}) + "{not json\n"
    with pytest.raises(BadImportFile) as refused:
        parse_export(text, "ws", NOW)
    fields = [(p.field, p.message.split(":")[0]) for p in refused.value.problems]
    assert fields == [
        ("line 3", "kind"),
        ("line 3", "body"),
        ("line 4", "unknown line type 'wat'; expected memory, edge or revision"),
        ("line 5", "not JSON (Expecting property name enclosed in double quotes"),
    ]


def test_a_file_without_the_header_is_not_an_export() -> None:
    with pytest.raises(BadImportFile) as refused:
        parse_export(dumps(memory_line(a_record())), "ws", NOW)
    assert refused.value.problems[0].field == "line 1"
    assert "memhive_export" in refused.value.problems[0].message


def test_a_memory_expired_since_the_export_is_refused_like_a_save() -> None:
    gone = a_record(expires_at=NOW - timedelta(hours=1))
    with pytest.raises(BadImportFile) as refused:
        parse_export(export_text(memory_line(gone)), "ws", NOW)
    assert "expires_at" in refused.value.problems[0].message


# --- Markdown memory files ----------------------------------------------------------------

CURSOR_RULE = """---
description: Testing rules
globs: ["**/*.py"]
---
# Testing

<!-- not a memory -->
Run `make test` before pushing.

* Never mock the database
  - use the real one in a container
"""


def test_a_cursor_rule_skips_its_front_matter_and_comments() -> None:
    items = parse_memory_file(".cursor/rules/testing.mdc", CURSOR_RULE, ROOT).items
    assert [(i.line, i.draft.kind, i.draft.body, i.draft.source_ref) for i in items] == [
        (
            8,
            MemoryKind.PROCEDURE,
            "Testing: Run `make test` before pushing.",
            ".cursor/rules/testing.mdc#testing:1",
        ),
        (
            10,
            MemoryKind.PREFERENCE,
            "Testing: Never mock the database\n  - use the real one in a container",
            ".cursor/rules/testing.mdc#testing:2",
        ),
    ]
    assert items[0].draft.tags == ("cursor-rules",)


def test_a_line_with_nothing_visible_is_a_blank_line() -> None:
    """A zero-width or filler line separates paragraphs like a blank one, and is no memory
    (the save's rule would refuse it, and the whole file with it)."""
    text = "Deploys go out on Tuesdays.\n\u200b\n\u3164 \u2800\nRollbacks need a ticket.\n"
    items = parse_memory_file("CLAUDE.md", text, ROOT).items
    assert [i.draft.body for i in items] == [
        "Deploys go out on Tuesdays.",
        "Rollbacks need a ticket.",
    ]


@pytest.mark.parametrize(
    ("path", "tag"),
    [
        ("CLAUDE.md", "claude-md"),
        ("sub/AGENTS.md", "agents-md"),
        (".cursor/rules/x.mdc", "cursor-rules"),
        (".github/copilot-instructions.md", "copilot-instructions"),
        ("notes.md", "markdown"),
    ],
)
def test_each_memory_file_is_tagged_with_where_it_came_from(path: str, tag: str) -> None:
    assert origin_tag(path) == tag


@pytest.mark.parametrize(
    ("text", "heading", "numbered", "kind"),
    [
        ("We decided to use NATS because it keeps every event", "", False, MemoryKind.DECISION),
        ("Use Postgres", "Architecture decisions", False, MemoryKind.DECISION),
        ("Always use tabs", "", False, MemoryKind.PREFERENCE),
        ("Four spaces per level", "Code style", False, MemoryKind.PREFERENCE),
        ("Tag the commit", "", True, MemoryKind.PROCEDURE),
        ("Run `make test`", "", False, MemoryKind.PROCEDURE),
        ("The API is served from Dublin", "Deploy", False, MemoryKind.PROCEDURE),
        ("The API is served from Dublin", "Overview", False, MemoryKind.FACT),
    ],
)
def test_kinds_are_guessed_from_words_and_sections(text, heading, numbered, kind) -> None:
    assert guess_kind(text, heading, numbered=numbered) is kind


def test_a_kind_is_guessed_from_as_much_as_a_memory_holds() -> None:
    """A paragraph longer than a memory makes none (refused); its words past that are not
    read, so an imported paragraph of "instead of" costs its first 4,000 characters only."""
    filler = "the cache " * (MAX_BODY_CHARS // 10)

    assert guess_kind(filler + "we decided to drop it") is MemoryKind.FACT
    assert guess_kind("we decided to drop it " + filler) is MemoryKind.DECISION


def test_memory_files_land_at_the_node_asked_for() -> None:
    items = parse_memory_file("AGENTS.md", "- Prefer small functions\n", SHOP).items
    assert items[0].draft.scope_path == "product:shop"


# --- mem0 ---------------------------------------------------------------------------------


def test_mem0_ids_become_nodes_tags_and_a_kept_entry() -> None:
    entries = [
        {"id": "a-1", "memory": "Prefers tea", "user_id": "alice", "metadata": None},
        {
            "id": "a-2",
            "memory": "Plans trips",
            "user_id": "alice",
            "agent_id": "planner",
            "run_id": "R-1",
            "metadata": {"categories": ["Travel Plans"], "x": 1},
            "hash": "h",
            "created_at": "2026-01-01T00:00:00Z",
        },
        {"id": "a-3", "memory": "Expired", "agent_id": "planner", "expiration_date": "2026-10-01"},
    ]
    parsed = parse_get_all(json.dumps({"results": entries}, indent=1), SHOP, NOW)
    drafts = [i.draft for i in parsed.items]
    assert [(d.scope_path, d.kind, d.tags) for d in drafts] == [
        ("product:shop/team:alice", MemoryKind.PREFERENCE, ("mem0",)),
        (
            "product:shop/team:alice/agent:planner",
            MemoryKind.FACT,
            ("mem0", "run:r-1", "travel-plans"),
        ),
    ]
    assert parsed.items[1].kept.key == "mem0.a-2"
    assert parsed.items[1].kept.value["metadata"] == {"categories": ["Travel Plans"], "x": 1}
    assert parsed.items[1].kept.value["created_at"] == "2026-01-01T00:00:00Z"
    assert [note.split(":")[0] for note in parsed.notes] == ["line 25"]


def test_the_bare_list_older_mem0_returned_is_read_too() -> None:
    parsed = parse_get_all('[{"id": "x", "memory": "Likes jazz"}]', ROOT, NOW)
    assert parsed.items[0].draft.scope_path == "global"


def test_bad_mem0_entries_are_named_by_line() -> None:
    text = '{"results": [\n{"id": "ok", "memory": "fine"},\n{"id": "bad id!", "user_id": "a/b"}\n]}'
    with pytest.raises(BadImportFile) as refused:
        parse_get_all(text, ROOT, NOW)
    assert [p.field for p in refused.value.problems] == ["line 3", "line 3"]
    with pytest.raises(BadImportFile) as not_json:
        parse_get_all('{"results": [\n', ROOT, NOW)
    assert not_json.value.problems[0].field == "line 2"


@given(st.lists(st.sampled_from(["a", "b", "a-1", "1"]), min_size=1, max_size=12))
def test_each_mem0_entry_is_named_by_the_line_of_its_own_id(ids: list[str]) -> None:
    """Ids may repeat: each entry is still named by the line its own id is on (the file is
    read in one pass, not searched from its start for each entry)."""
    entries = [{"memory": f"note {n}", "id": i} for n, i in enumerate(ids)]
    text = json.dumps({"results": entries}, indent=2)
    own = [n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith('"id"')]
    problems = [p.field for p in _refused_at_each(text, len(ids))]
    assert problems == [f"line {n}" for n in own]


def _refused_at_each(text: str, count: int) -> list:
    """Every entry refused (its node cannot be made), so each is named by its line."""
    bad = text.replace('"id"', '"user_id": "a/b", "id"')
    with pytest.raises(BadImportFile) as refused:
        parse_get_all(bad, ROOT, NOW)
    assert len(refused.value.problems) == count
    return refused.value.problems


def test_a_user_node_below_a_team_cannot_be_made() -> None:
    entry = {"id": "x", "memory": "m", "user_id": "alice"}
    with pytest.raises(BadImportFile) as refused:
        parse_get_all(json.dumps([entry]), ScopeRef(Scope.PRODUCT, "p", "web"), NOW)
    assert "no team level left" in refused.value.problems[0].message


# --- formats, the Markdown export, and inputs no parser may fail on -----------------------


def test_formats_are_guessed_from_the_file_name() -> None:
    assert [format_of(p) for p in ("x.jsonl", "x.ndjson", "mem0.json", "CLAUDE.md", "r.mdc")] == [
        ImportFormat.MEMHIVE,
        ImportFormat.MEMHIVE,
        ImportFormat.MEM0,
        ImportFormat.MARKDOWN,
        ImportFormat.MARKDOWN,
    ]


def test_the_markdown_export_is_one_readable_file_per_node() -> None:
    new = a_record(body="We moved to GitHub Actions", pinned=True)
    old = a_record(body="We use Jenkins\nsince 2019", kind=MemoryKind.DECISION)
    web = a_record(body="Web ships daily", scope=Scope.PRODUCT, product_id="shop", team_id="web")
    edge = Edge(new.id, old.id, EdgeKind.UPDATES, 1.0, "a", CreatorKind.USER, "", NOW)
    files = render_scope_files([new, old, web], [edge], "ws", NOW)
    assert sorted(files) == ["global.md", "product-shop__team-web.md"]
    text = files["global.md"]
    assert text.index("## Pinned") < text.index("## Decisions")
    assert "- We use Jenkins\n  since 2019\n" in text and f"**superseded by** `{new.id}`" in text
    assert file_name("product:a.b:c/agent:x@y") == "product-a.b-c__agent-x@y.md"


@settings(max_examples=200, deadline=None)
@given(
    form=st.sampled_from(list(ImportFormat)),
    text=st.one_of(
        st.text(max_size=400),
        st.lists(st.sampled_from(["# h", "- b", "1. n", "```", "---", "<!--", "-->", "x", ""])).map(
            "\n".join
        ),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "id",
                            "memory",
                            "results",
                            "user_id",
                            "memhive_export",
                            "type",
                            "memory",
                            "edge",
                        ]
                    ),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=12,
        ).map(json.dumps),
    ),
)
def test_no_input_fails_a_parser_but_as_a_bad_file(form: ImportFormat, text: str) -> None:
    try:
        parse_import(form, text, path="CLAUDE.md", base=ROOT, workspace_id="ws", now=NOW)
    except BadImportFile as bad:
        assert bad.problems and all(p.field.startswith("line ") for p in bad.problems)


@given(heading_lines([""]))
@example("## Title ##")
@example("# Title#")
@example("# ###")
@example("####### seven")
def test_a_heading_line_reads_as_the_pattern_did(line: str) -> None:
    """`_heading` reads a line from its ends; the pattern it replaced (kept here) tried each
    shortest text against the rest of the line: seconds for a few thousand spaces."""
    match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)

    assert markdown_files._heading(line) == (match.group(2).strip() if match else None)


@pytest.mark.parametrize(("field", "value"), [("pinned", "false"), ("importance", True)])
def test_a_flag_or_number_of_another_json_type_is_refused_naming_it(field, value) -> None:
    """bool("false") is True: a hand-edited `"pinned": "false"` came back pinned."""
    line = memory_line(a_record())
    line["memory"] = dict(line["memory"], **{field: value})
    with pytest.raises(BadImportFile) as refused:
        parse_export(export_text(line), "ws", NOW)
    assert [p.message.split(":")[0] for p in refused.value.problems] == [field]
