"""`memhive hook claude-code`'s reading of its input: strict, bounded, the prompt cut to what
the gateway reads. That it never blocks the agent, whatever it reads:
tests/integration/cli/test_agent_hook_failures.py; against a real `memhive run`, and a real
Claude Code when one is installed: tests/e2e/test_claude_code_hook.py."""

from __future__ import annotations

import io
import json

import pytest

from memhive_cli.agent_hooks import (
    MAX_INPUT_BYTES,
    PROMPT_CHARS_SENT,
    HookInputError,
    is_hook_call,
    read_event,
)


def _read(data: object) -> dict:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return read_event(io.BytesIO(raw))


def test_the_event_is_read_whole_and_its_prompt_cut_to_what_the_gateway_reads() -> None:
    start = {"hook_event_name": "SessionStart", "session_id": "s", "source": "compact", "x": 1}
    assert _read(start) == start
    long = {"hook_event_name": "UserPromptSubmit", "prompt": "a" * (PROMPT_CHARS_SENT + 5)}
    assert _read(long)["prompt"] == "a" * PROMPT_CHARS_SENT


@pytest.mark.parametrize(
    "data",
    [b"", b"not json", b"\xff\xfe\x00", [], "SessionStart", {}, {"hook_event_name": 3}],
)
def test_anything_else_is_refused(data: object) -> None:
    with pytest.raises(HookInputError):
        _read(data)


def test_an_input_past_the_bound_is_refused_unread() -> None:
    huge = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "a" * MAX_INPUT_BYTES})
    with pytest.raises(HookInputError, match="more than"):
        _read(huge.encode())


def test_a_hook_call_is_told_by_its_command() -> None:
    assert is_hook_call(["hook", "claude-code"]) and is_hook_call(["--verbose", "hook"])
    assert not is_hook_call(["recall", "hook"]) and not is_hook_call([])


@pytest.mark.parametrize(
    ("transcript", "found"),
    [
        ("/h/.claude/projects/-h-app/s1.jsonl", "/h/.claude/projects/-h-app/memory"),
        ("/cfg/projects/-x/s.jsonl", "/cfg/projects/-x/memory"),
        ("/h/.claude/elsewhere/-h-app/s1.jsonl", None),  # not where a project's transcript is
        ("/h/.claude/projects/-h-app/s1.txt", None),
        (None, None),
        (3, None),
    ],
)
def test_a_projects_auto_memory_is_found_beside_the_sessions_transcript(
    transcript: object, found: str | None
) -> None:
    from pathlib import Path

    from memhive_cli.auto_memory import memory_dir

    assert memory_dir({"transcript_path": transcript}) == (found and Path(found))
