"""`memhive hook claude-code`'s parts: its input read strictly, a prompt made a bounded
query, what a session was shown. That it never blocks the agent, whatever it reads:
tests/integration/cli/test_agent_hook_failures.py; against a real `memhive run`:
tests/e2e/test_claude_code_hook.py."""

from __future__ import annotations

import io
import json
import os
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhive_cli.agent_hooks import (
    MAX_CONTEXT_CHARS,
    MAX_INPUT_BYTES,
    MAX_QUERY_CHARS,
    HookEvent,
    HookInputError,
    is_hook_call,
    prompt_query,
    read_event,
    within_bound,
)
from memhive_cli.hook_sessions import IDLE_S, KEPT_IDS, ShownInSession

# --- the event ---------------------------------------------------------------------------


def _read(data: object) -> HookEvent:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return read_event(io.BytesIO(raw))


def test_the_events_fields_are_read() -> None:
    start = {"hook_event_name": "SessionStart", "session_id": "s", "source": "compact", "x": 1}
    assert _read(start) == HookEvent("SessionStart", "s", source="compact")
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "why?"}
    assert _read(prompt) == HookEvent("UserPromptSubmit", "s", prompt="why?")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"\xff\xfe\x00",
        [],
        "SessionStart",
        {},
        {"hook_event_name": ""},
        {"hook_event_name": 3},
        {"hook_event_name": "UserPromptSubmit", "prompt": ["a"]},
        {"hook_event_name": "SessionStart", "session_id": None},
    ],
)
def test_anything_else_is_refused(data: object) -> None:
    with pytest.raises(HookInputError):
        _read(data)


def test_an_input_past_the_bound_is_refused_unread() -> None:
    huge = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "a" * MAX_INPUT_BYTES})
    with pytest.raises(HookInputError, match="more than"):
        _read(huge.encode())


# --- the prompt as a query ---------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["/clear", "/review the billing module", "ok", "  y \n", ""])
def test_slash_commands_and_prompts_with_nothing_to_search_for_recall_nothing(
    prompt: str,
) -> None:
    assert prompt_query(prompt) is None


def test_a_long_prompt_is_cut_at_a_word_within_the_apis_bound() -> None:
    query = prompt_query("deploy " * 1000)
    assert query is not None and len(query) <= MAX_QUERY_CHARS
    assert query.endswith("deploy") and "  " not in query


def test_control_characters_and_lone_surrogates_are_left_out() -> None:
    assert prompt_query("why did\x00 the\ud800 deploy\n\tfail?") == "why did the deploy fail?"


@given(st.text(max_size=3000))
def test_any_prompt_gives_none_or_a_query_the_api_accepts(prompt: str) -> None:
    query = prompt_query(prompt)
    if query is None:
        return
    assert 1 <= len(query) <= MAX_QUERY_CHARS and query == query.strip()
    assert not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in query)
    assert sum(ch.isalnum() for ch in query) >= 3


@given(st.lists(st.text(max_size=400), max_size=60))
def test_what_is_added_stays_within_what_claude_code_shows_whole(lines: list[str]) -> None:
    text = "\n".join(lines)
    bounded = within_bound(text)
    assert len(bounded) <= MAX_CONTEXT_CHARS
    if len(text) <= MAX_CONTEXT_CHARS:
        assert bounded == text


def test_a_hook_call_is_told_by_its_command() -> None:
    assert is_hook_call(["hook", "claude-code"]) and is_hook_call(["--verbose", "hook"])
    assert not is_hook_call(["recall", "hook"]) and not is_hook_call([])


# --- what a session was shown ------------------------------------------------------------


def _environ(tmp_path: Path) -> dict[str, str]:
    return {"XDG_RUNTIME_DIR": str(tmp_path / "runtime")}


def test_a_session_remembers_what_it_was_shown_and_a_new_context_starts_over(
    tmp_path: Path,
) -> None:
    shown = ShownInSession("session-1", _environ(tmp_path))
    assert shown.ids() == []
    shown.add(["a", "b"])
    shown.add(["b", "c"])
    assert ShownInSession("session-1", _environ(tmp_path)).ids() == ["a", "b", "c"]
    assert ShownInSession("session-2", _environ(tmp_path)).ids() == []
    shown.start_over(["z"])
    assert shown.ids() == ["z"]
    shown.add(str(i) for i in range(KEPT_IDS + 10))
    assert len(shown.ids()) == KEPT_IDS and shown.ids()[-1] == str(KEPT_IDS + 9)


@pytest.mark.parametrize("session_id", ["../../escape", "/etc/passwd", "a/b", "\ud800", "x" * 5000])
def test_a_session_id_never_becomes_a_path(tmp_path: Path, session_id: str) -> None:
    ShownInSession(session_id, _environ(tmp_path)).add(["m"])
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 1 and written[0].parent.name == "hook-sessions"
    assert len(written[0].stem) == 32 and oct(written[0].stat().st_mode)[-3:] == "600"


def test_an_unreadable_record_is_a_session_that_saw_nothing(tmp_path: Path) -> None:
    shown = ShownInSession("s", _environ(tmp_path))
    shown.add(["m"])
    (path,) = (tmp_path / "runtime" / "memhive" / "hook-sessions").iterdir()
    for garbage in ("{", '{"shown": 3}', '{"shown": [1, "m2"]}', "[]"):
        path.write_text(garbage)
        assert shown.ids() in ([], ["m2"])


def test_sessions_idle_for_a_week_are_removed_when_one_starts(tmp_path: Path) -> None:
    old, fresh = (ShownInSession(s, _environ(tmp_path)) for s in ("old", "fresh"))
    old.add(["a"])
    fresh.add(["b"])
    (old_path,) = [p for p in old._dir.iterdir() if "a" in p.read_text()]
    stale = time.time() - IDLE_S - 60
    os.utime(old_path, (stale, stale))
    ShownInSession("new", _environ(tmp_path)).start_over([])
    assert not old_path.exists() and fresh.ids() == ["b"]
