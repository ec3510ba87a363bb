"""`memhive hook claude-code` as Claude Code runs it: a command given the event as JSON on
stdin, in the project's directory, with the gateway and a token in its environment, against
a real `memhive run`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.running_stack import free_port
from memhive_cli.agent_hooks import NOTES_NOT_ORDERS
from tests.e2e.process import TOKEN, MemhiveProcess, client

DEPLOYS = "Deploys go out on Tuesdays and Thursdays only; Friday deploys stopped after March."
SWIFT = "The iOS app targets Swift 6 and iOS 17."
BILLING = "Billing uses Postgres 16 on RDS; the analytics warehouse is BigQuery."
README = Path(__file__).resolve().parents[2] / "README.md"
FRIDAY = "Is it fine to deploy the hotfix on Friday afternoon?"


def readme_hooks() -> dict[str, list[str]]:
    """The README's `.claude/settings.json`: each event's command, as argv after `memhive`."""
    section = README.read_text().split("### Claude Code: memories without asking")[1]
    settings = json.loads(section.split("```json\n")[1].split("```")[0])
    commands = {}
    for event, groups in settings["hooks"].items():
        [group] = groups
        [hook] = group["hooks"]
        assert hook["type"] == "command" and hook["timeout"] >= 10
        program, *argv = shlex.split(hook["command"])
        commands[event] = argv
        assert program == "memhive"
    return commands


def _hook_runner(tmp_path: Path, url: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHIVE_")}
    env |= {"MEMHIVE_URL": url, "MEMHIVE_TOKEN": TOKEN}
    env |= {"XDG_RUNTIME_DIR": str(tmp_path / "runtime")}  # what each session was shown
    project = tmp_path / "project"  # Claude Code runs a hook in the project's directory
    project.mkdir()
    configured = readme_hooks()

    def hook(
        event: dict, options: list[str] | None = None
    ) -> tuple[str | None, subprocess.CompletedProcess]:
        """The context the hook added (None: nothing), and the finished command: the hook
        called with `options`, or as the README configures it for the event."""
        readme = configured.get(event["hook_event_name"], ["hook", "claude-code"])
        argv = readme if options is None else ["hook", "claude-code", *options]
        command = [sys.executable, "-m", "memhive_cli.main", *argv]
        done = subprocess.run(command, input=json.dumps(event), env=env, cwd=project,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        if not done.stdout:
            return None, done
        output = json.loads(done.stdout)["hookSpecificOutput"]
        assert output["hookEventName"] == event["hook_event_name"]
        return output["additionalContext"], done

    return hook


def _bulletin_shows(api, bodies: list[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not all(body in api.context(1500, product_id="ios").text for body in bodies):
        assert time.monotonic() < deadline, "the iOS bulletin never showed the saves"
        time.sleep(0.2)


def api_memory_author(url: str, memory_id: str) -> tuple[str, float]:
    with client(url) as api:
        memory = api.get(memory_id)
    return memory.created_by, memory.trust


def _start(session: str, source: str = "startup") -> dict:
    return {"hook_event_name": "SessionStart", "session_id": session, "source": source}


def _prompt(session: str, prompt: str) -> dict:
    return {"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": prompt}


@pytest.mark.timeout(300)
def test_a_session_starts_with_its_scope_and_each_prompt_brings_what_it_was_not_shown(
    tmp_path: Path,
) -> None:
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    hook = _hook_runner(tmp_path, memhive.url)
    try:
        memhive.wait_until_healthy()
        assert hook(_start("empty"))[0] is None  # nothing stored yet

        with client(memhive.url) as api:
            deploys = api.save("decision", DEPLOYS, product_id="ios").id
            swift = api.save("fact", SWIFT, product_id="ios").id
            billing = api.save("decision", BILLING).id
            _bulletin_shows(api, [DEPLOYS, SWIFT])  # rendered once saves pause (~2 s)

        # The same pack for a person or another agent's runner: `memhive context`.
        pack = subprocess.run(
            [sys.executable, "-m", "memhive_cli.main", "context", "--product", "ios"],
            env={**os.environ, "MEMHIVE_URL": memhive.url, "MEMHIVE_TOKEN": TOKEN},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert pack.returncode == 0 and DEPLOYS in pack.stdout and BILLING not in pack.stdout

        # A new session in the iOS product starts with its bulletin, not another scope's.
        opening, _ = hook(_start("a"))
        assert opening is not None and "product ios" in opening
        assert DEPLOYS in opening and SWIFT in opening and BILLING not in opening
        # What the session was shown at its start is not added again to a prompt...
        assert hook(_prompt("a", FRIDAY))[0] is None
        # ...but another session, never shown it, gets it with the prompt, once.
        added, _ = hook(_prompt("b", FRIDAY))
        assert added is not None and f"[{deploys}]" in added and DEPLOYS in added
        assert swift not in added  # below the floor: nothing to do with the prompt
        # Framed as what others wrote, with who wrote it and how far it is trusted.
        assert NOTES_NOT_ORDERS in added and NOTES_NOT_ORDERS in opening
        author, trust = api_memory_author(memhive.url, deploys)
        assert f"by {author}; trust {trust:.2f}" in added, added
        assert hook(_prompt("b", FRIDAY))[0] is None
        # A compaction wipes the context: the session starts over with the bulletin.
        again, _ = hook(_start("b", "compact"))
        assert again is not None and DEPLOYS in again
        # Without a product: the workspace's memories. Off-topic prompts, slash commands.
        found, _ = hook(_prompt("c", "which database does billing use?"), [])
        assert found is not None and f"[{billing}]" in found
        assert hook(_prompt("c", "What is the capital of France?"), [])[0] is None
        assert hook(_prompt("c", "/compact"), [])[0] is None
        assert hook({"hook_event_name": "Stop", "session_id": "c"}, [])[0] is None

        # memhive stopped: the session goes on, told why on stderr only.
        assert memhive.ctrl_c() == 0, memhive.output()
        down, done = hook(_start("d"))
        assert down is None and "cannot reach memhive" in done.stderr
    finally:
        memhive.ensure_gone()


def claude_code() -> str | None:
    """A Claude Code to run: MEMHIVE_TEST_CLAUDE_CODE, else `claude` on PATH."""
    return os.environ.get("MEMHIVE_TEST_CLAUDE_CODE") or shutil.which("claude")


@pytest.mark.timeout(300)
@pytest.mark.skipif(
    claude_code() is None,
    reason="Claude Code is not installed here: `npm install @anthropic-ai/claude-code`, then "
    "MEMHIVE_TEST_CLAUDE_CODE=<that dir>/node_modules/.bin/claude",
)
def test_claude_code_itself_puts_the_hooks_memories_before_the_model(tmp_path: Path) -> None:
    """A real Claude Code session, its model a stand-in that records what it is sent
    (fake_messages_api.py), configured with the README's `.claude/settings.json`."""
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    api_port, sent = free_port(), tmp_path / "sent-to-the-model.jsonl"
    fake_api = subprocess.Popen(
        [sys.executable, "-m", "tests.e2e.fake_messages_api", str(api_port), str(sent)],
        cwd=README.parent,
    )
    try:
        memhive.wait_until_healthy()
        with client(memhive.url) as api:
            deploys = api.save("decision", DEPLOYS, product_id="ios").id
            api.save("fact", SWIFT, product_id="ios")
            _bulletin_shows(api, [DEPLOYS, SWIFT])
        _wait_for_port(api_port)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHIVE_")} | {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(tmp_path / "home"),  # none of this user's own Claude Code settings
            "XDG_RUNTIME_DIR": str(tmp_path / "runtime"),
            "MEMHIVE_URL": memhive.url,
            "MEMHIVE_TOKEN": TOKEN,
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{api_port}",
            "ANTHROPIC_API_KEY": "sk-ant-stand-in",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        settings = README.read_text().split("### Claude Code: memories without asking")[1]
        settings = settings.split("```json\n")[1].split("```")[0]

        def session(hooked_events: list[str]) -> str:
            """What one `claude -p FRIDAY` sent the model, with only these events hooked."""
            project = tmp_path / "-".join(hooked_events)
            hooks = {e: h for e, h in json.loads(settings)["hooks"].items() if e in hooked_events}
            (project / ".claude").mkdir(parents=True)
            (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
            sent.unlink(missing_ok=True)
            done = subprocess.run([claude_code(), "-p", FRIDAY], cwd=project, env=env,
                                  capture_output=True, text=True, timeout=120)  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            return sent.read_text()

        # As the README configures it: the session opens with the iOS bulletin, and the
        # prompt adds nothing the opening showed.
        both = session(["SessionStart", "UserPromptSubmit"])
        assert "SessionStart hook additional context: memhive" in both and DEPLOYS in both
        assert "UserPromptSubmit hook additional context" not in both
        # The prompt's hook alone: the memory comes with the prompt.
        prompt_only = session(["UserPromptSubmit"])
        assert "UserPromptSubmit hook additional context: memhive" in prompt_only
        assert f"[{deploys}]" in prompt_only and "SessionStart hook" not in prompt_only
    finally:
        fake_api.terminate()
        fake_api.wait(timeout=10)
        memhive.ensure_gone()


def _wait_for_port(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"nothing listens on {port}"
        time.sleep(0.1)
