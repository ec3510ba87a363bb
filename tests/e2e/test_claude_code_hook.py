"""Claude Code's hooks as the README configures them, against a real `memhive run`: the
session's start through `memhive hook claude-code` (a command given the event as JSON on
stdin, in the project's directory, the gateway and a token in its environment), a prompt
through the gateway's `/v1/hooks/claude-code` (an http hook). With Claude Code installed, a
real session too."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from memhive_domain.agent_hooks import NOTES_NOT_ORDERS

from bench.running_stack import free_port
from tests.e2e.process import TOKEN, MemhiveProcess, client

DEPLOYS = "Deploys go out on Tuesdays and Thursdays only; Friday deploys stopped after March."
SWIFT = "The iOS app targets Swift 6 and iOS 17."
BILLING = "Billing uses Postgres 16 on RDS; the analytics warehouse is BigQuery."
README = Path(__file__).resolve().parents[2] / "README.md"
README_ADDRESS = "http://127.0.0.1:8080"  # the README's gateway; the test's listens elsewhere
FRIDAY = "Is it fine to deploy the hotfix on Friday afternoon?"


def readme_settings(url: str) -> dict:
    """The README's `.claude/settings.json` (its blocks' hooks together), its gateway address
    made `url`."""
    section = README.read_text().split("### Claude Code: memories without asking")[1]
    section = section.split("\n## ")[0]
    hooks = {}
    for block in section.split("```json\n")[1:]:
        hooks |= json.loads(block.split("```")[0].replace(README_ADDRESS, url))["hooks"]
    return {"hooks": hooks}


def _hook_runner(tmp_path: Path, url: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHIVE_")}
    env |= {"MEMHIVE_URL": url, "MEMHIVE_TOKEN": TOKEN}
    project = tmp_path / "project"  # Claude Code runs a hook in the project's directory
    project.mkdir()
    configured = {}
    for event, groups in readme_settings(url)["hooks"].items():
        [group] = groups
        [configured[event]] = group["hooks"]

    def command(argv: list[str], event: dict) -> tuple[str, subprocess.CompletedProcess]:
        done = subprocess.run([sys.executable, "-m", "memhive_cli.main", *argv],
                              input=json.dumps(event), env=env, cwd=project,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout, done

    def http(hook: dict, event: dict) -> tuple[str, httpx.Response]:
        """As Claude Code sends it: the input as the body, `$VAR`s of allowedEnvVars set."""
        headers = dict(hook.get("headers", {}))
        for name in hook.get("allowedEnvVars", []):
            headers = {k: v.replace(f"${name}", env[name]) for k, v in headers.items()}
        answer = httpx.post(hook["url"], json=event, headers=headers, timeout=hook["timeout"])
        assert answer.status_code == 200, answer.text
        return answer.text, answer

    def hook(event: dict, options: list[str] | None = None) -> tuple[str | None, object]:
        """The context the hook added (None: nothing), and the finished command or answer:
        `memhive hook claude-code` with `options`, or the README's hook for the event."""
        configured_hook = configured.get(event["hook_event_name"])
        if options is not None or configured_hook is None:
            out, done = command(["hook", "claude-code", *(options or [])], event)
        elif configured_hook["type"] == "command":
            program, *argv = shlex.split(configured_hook["command"])
            assert program == "memhive" and configured_hook["timeout"] >= 10
            out, done = command(argv, event)
        else:
            assert configured_hook["type"] == "http"
            out, done = http(configured_hook, event)
        answer = json.loads(out) if out.strip() else {}
        if not answer:
            return None, done
        output = answer["hookSpecificOutput"]
        assert output["hookEventName"] == event["hook_event_name"]
        return output["additionalContext"], done

    return hook, configured


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
    hook, configured = _hook_runner(tmp_path, memhive.url)
    assert [configured[e]["type"] for e in ("SessionStart", "UserPromptSubmit")] == [
        "command",
        "http",
    ]  # the only kind Claude Code runs at SessionStart; the faster one for prompts
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

        # At a session's end, Claude Code's auto memory of the project goes to the node:
        # what is about the work, not what is about its user.
        transcript = _auto_memory(tmp_path / "claude").parent / "a.jsonl"
        end = {"hook_event_name": "SessionEnd", "session_id": "a", "reason": "exit",
               "transcript_path": str(transcript)}  # fmt: skip
        shared, done = hook(end)
        assert shared is None and "1 shared, 0 already there, 1 about you" in done.stderr
        with client(memhive.url) as api:
            bodies = [m.body for m in api.list(product_id="ios", limit=100).items]
        assert any(RELEASE_TRAIN in body for body in bodies)
        assert not any(ABOUT_ME in body for body in bodies)
        assert "0 shared, 1 already there" in hook(end)[1].stderr  # nothing twice

        # memhive stopped: the session goes on, told why on stderr only.
        assert memhive.ctrl_c() == 0, memhive.output()
        down, done = hook(_start("d"))
        assert down is None and "cannot reach memhive" in done.stderr
    finally:
        memhive.ensure_gone()


RELEASE_TRAIN = "Release trains leave every second Wednesday; a missed one waits two weeks."
ABOUT_ME = "The user is a staff engineer who prefers terse answers."


def _auto_memory(config_dir: Path, project: str = "-work-app") -> Path:
    """Claude Code's auto memory of a project, as it writes it: a file per memory, an index."""
    memory = config_dir / "projects" / project / "memory"
    memory.mkdir(parents=True)
    (memory / "release-train.md").write_text(
        "---\nname: release-train\ndescription: When releases leave\nmetadata:\n"
        f"  type: project\n---\n{RELEASE_TRAIN}\n**Why:** QA signs off on Tuesdays.\n"
    )
    (memory / "about-me.md").write_text(
        f"---\nname: about-me\ndescription: Who the user is\ntype: user\n---\n{ABOUT_ME}\n"
    )
    (memory / "MEMORY.md").write_text("- [Release train](release-train.md) — when\n")
    return memory


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
            "MEMHIVE_URL": memhive.url,
            "MEMHIVE_TOKEN": TOKEN,
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{api_port}",
            "ANTHROPIC_API_KEY": "sk-ant-stand-in",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        settings = readme_settings(memhive.url)

        def session(hooked_events: list[str], project: Path | None = None) -> str:
            """What one `claude -p FRIDAY` sent the model, with only these events hooked."""
            project = project or tmp_path / "-".join(hooked_events)
            hooks = {e: h for e, h in settings["hooks"].items() if e in hooked_events}
            (project / ".claude").mkdir(parents=True, exist_ok=True)
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
        # Claude Code's auto memory of that project, shared as its next session ends.
        # (Claude Code names a project's directory after its path, each other character a -)
        slug = re.sub(r"[^A-Za-z0-9]", "-", str(tmp_path / "UserPromptSubmit"))
        claude_project = tmp_path / "home" / ".claude" / "projects" / slug
        assert claude_project.is_dir(), sorted(claude_project.parent.iterdir())
        shutil.rmtree(claude_project / "memory", ignore_errors=True)
        _auto_memory(tmp_path / "home" / ".claude", claude_project.name)
        session(["SessionEnd"], tmp_path / "UserPromptSubmit")
        with client(memhive.url) as api:
            bodies = [m.body for m in api.list(product_id="ios", limit=100).items]
        assert any(RELEASE_TRAIN in body for body in bodies), bodies
        assert not any(ABOUT_ME in body for body in bodies)
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
