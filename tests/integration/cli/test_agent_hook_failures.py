"""`memhive hook claude-code` keeps one promise whatever it reads and whatever state memhive
is in: it never stands in the agent's way. No exit 2 (Claude Code would block the prompt),
nothing on stdout unless it is the whole answer, one line on stderr, no traceback."""

from __future__ import annotations

import http.server
import io
import json
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhive_cli import main as cli


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gateway address where nothing listens, and this test's own runtime dir."""
    from tests.integration.conftest import free_port

    monkeypatch.setenv("MEMHIVE_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("MEMHIVE_TOKEN", "mh_not-checked-before-the-connection")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))


def _hook(monkeypatch: pytest.MonkeyPatch, stdin: bytes, *options: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    return cli.main(["hook", "claude-code", *options])


@pytest.mark.usefixtures("nowhere")
@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_memhive_down_adds_nothing_and_lets_the_session_go_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], event: str
) -> None:
    data = {"hook_event_name": event, "session_id": "s", "prompt": "how do we deploy?"}
    assert _hook(monkeypatch, json.dumps(data).encode()) == 0
    out, err = capsys.readouterr()
    assert out == "" and "cannot reach memhive" in err and "Traceback" not in err


@pytest.mark.usefixtures("nowhere")
@pytest.mark.parametrize(
    "options", [["--bogus"], ["--timeout", "0"], ["--timeout", "nan"], ["--limit", "x"], []]
)
def test_a_misconfigured_hook_is_reported_without_blocking_the_prompt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    """Exit 1 (Claude Code reports it, the prompt goes on), never 2 (it would block)."""
    stdin = b"{}" if not options else b'{"hook_event_name": "Stop"}'
    assert _hook(monkeypatch, stdin, *options) == 1
    assert capsys.readouterr().out == ""


@pytest.mark.usefixtures("nowhere")
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda name, prompt, extra: json.dumps(
                {"hook_event_name": name, "session_id": "s", "prompt": prompt, **extra}
            ).encode(),
            st.sampled_from(["SessionStart", "UserPromptSubmit", "Stop", "PreToolUse", ""]),
            st.one_of(st.text(max_size=300), st.integers(), st.none()),
            st.dictionaries(st.text(max_size=10), st.integers(), max_size=3),
        ),
    )
)
def test_no_input_makes_the_hook_block_the_agent_or_print_half_an_answer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: bytes
) -> None:
    code = _hook(monkeypatch, stdin)
    out, err = capsys.readouterr()
    assert code in (0, 1) and out == "" and "Traceback" not in err


def test_a_memhive_that_never_answers_costs_the_prompt_the_timeout_and_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A listening socket nobody reads (a hung gateway): the hook gives up at --timeout."""
    import socket

    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        monkeypatch.setenv("MEMHIVE_URL", f"http://127.0.0.1:{hung.getsockname()[1]}")
        monkeypatch.setenv("MEMHIVE_TOKEN", "mh_never-read")
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
        event = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "why?!?"}
        began = time.monotonic()
        assert _hook(monkeypatch, json.dumps(event).encode(), "--timeout", "0.5") == 0
        waited = time.monotonic() - began
    out, err = capsys.readouterr()
    assert out == "" and "did not answer within 0.5 s" in err
    assert waited < 10, waited  # a bound on the hang, not a speed: without it, forever


@pytest.mark.usefixtures("nowhere")
def test_sharing_auto_memory_with_memhive_down_lets_the_session_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = tmp_path / "claude" / "projects" / "-app" / "memory"
    memory.mkdir(parents=True)
    (memory / "a.md").write_text("---\ntype: project\n---\nReleases leave on Wednesdays.\n")
    event = {"hook_event_name": "SessionEnd", "session_id": "s",
             "transcript_path": str(memory.parent / "s.jsonl")}  # fmt: skip
    assert _hook(monkeypatch, json.dumps(event).encode(), "--share-auto-memory") == 0
    out, err = capsys.readouterr()
    assert out == "" and "cannot reach memhive" in err and "Traceback" not in err


class _Gateway(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the server's `answer` (status, body); keeps what it was sent."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("content-length", 0))
        self.server.sent.append((self.path, dict(self.headers), self.rfile.read(length)))
        status, body = self.server.answer
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    server.sent, server.answer = [], (200, b"{}")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("MEMHIVE_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("MEMHIVE_TOKEN", "mh_the-token")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    yield server
    server.shutdown()
    server.server_close()


PROMPT = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "deploy Friday?"}


def test_the_hook_hands_its_input_and_options_to_the_gateway_and_prints_its_answer(
    gateway, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "x"}}
    gateway.answer = (200, json.dumps(answer).encode())
    options = ["--product", "ios", "--limit", "3"]
    assert _hook(monkeypatch, json.dumps(PROMPT).encode(), *options) == 0
    assert json.loads(capsys.readouterr().out) == answer
    [(path, headers, body)] = gateway.sent
    assert path == "/v1/hooks/claude-code?product_id=ios&limit=3"
    assert headers["Authorization"] == "Bearer mh_the-token"
    assert json.loads(body) == PROMPT


@pytest.mark.parametrize(
    ("status", "body", "code", "said"),
    [
        (401, b'{"detail": "unknown token"}', 1, "unknown token (HTTP 401) (check MEMHIVE_TOKEN"),
        (
            422,
            b'{"detail": "invalid request", "problems": [{"field": "limit", "message": "<= 20"}]}',
            1,
            "invalid request (limit: <= 20)",
        ),
        (503, b'{"detail": "the bus is not answering"}', 0, "the bus is not answering (HTTP 503)"),
        (500, b"<html>oops</html>", 0, "Internal Server Error (HTTP 500)"),
        (200, b"not json", 1, "not a JSON object"),
        (200, b"[1, 2]", 1, "not a JSON object"),
    ],
)
def test_a_gateway_that_refuses_or_answers_badly_adds_nothing_and_says_why(
    gateway,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    status: int,
    body: bytes,
    code: int,
    said: str,
) -> None:
    """What the user can fix exits 1 (Claude Code shows it); memhive's own trouble exits 0."""
    gateway.answer = (status, body)
    assert _hook(monkeypatch, json.dumps(PROMPT).encode()) == code
    out, err = capsys.readouterr()
    assert out == "" and said in err and "Traceback" not in err, err
