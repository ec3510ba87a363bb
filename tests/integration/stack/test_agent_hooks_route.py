"""POST /v1/hooks/claude-code on the stack: a prompt's memories, once per session, only what
the caller may read; bad input a 422 naming the field. The whole flow with `memhive run`
(and a real Claude Code when one is installed): tests/e2e/test_claude_code_hook.py."""

from __future__ import annotations

import pytest
from memhive_contracts.bus_permissions import QUERY
from memhive_query.app import create_app

from tests.integration.stack.conftest import Stack, Workspace, app_running, save

HOOK = "/v1/hooks/claude-code"
BODY = "Design reviews for the mobile team happen on Thursdays at 10:00"


def prompt(session: str, text: str = "which day are the design reviews?") -> dict:
    # Claude Code's input carries more than the gateway reads: those fields are ignored.
    return {
        "hook_event_name": "UserPromptSubmit",
        "session_id": session,
        "prompt": text,
        "cwd": "/home/dev/app",
        "transcript_path": "/home/dev/.claude/projects/app/s.jsonl",
        "permission_mode": "default",
    }


async def test_a_prompt_gets_the_memories_that_bear_on_it_once_a_session(
    workspace: Workspace,
) -> None:
    memory = await save(workspace.member, kind="decision", body=BODY)

    first = await workspace.member.post(HOOK, json=prompt("s1"))
    assert first.status_code == 200, first.text
    output = first.json()["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    assert (
        f"[{memory['id']}]" in output["additionalContext"] and BODY in output["additionalContext"]
    )

    assert (await workspace.member.post(HOOK, json=prompt("s1"))).json() == {}
    again = (await workspace.member.post(HOOK, json=prompt("s2"))).json()
    assert BODY in again["hookSpecificOutput"]["additionalContext"]  # another session
    off_topic = prompt("s3", "What is the capital of France?")
    assert (await workspace.member.post(HOOK, json=off_topic)).json() == {}
    for other in ({"hook_event_name": "Stop", "session_id": "s4"}, prompt("s5", "/compact")):
        assert (await workspace.member.post(HOOK, json=other)).json() == {}


async def test_a_prompt_on_another_gateway_replica_is_not_given_what_the_start_showed(
    stack: Stack, workspace: Workspace
) -> None:
    """Behind a load balancer, a session's start (a new process, a new connection) and its
    prompts reach different replicas: what was shown is shared on the bus."""
    memory = await save(workspace.member, kind="decision", body=BODY)
    start = {"hook_event_name": "SessionStart", "session_id": "across", "source": "startup"}
    opened = await workspace.member.post(HOOK, json=start)
    assert memory["id"] in opened.json()["hookSpecificOutput"]["additionalContext"]

    infra = await stack.infra.connect_as(QUERY, name="hook-replica")  # `memhive serve query`
    try:
        app = await create_app(infra)
        async with app_running(app), Stack(stack.infra, app).client(None) as replica:
            replica.headers.update(workspace.member.headers)
            assert (await replica.post(HOOK, json=prompt("across"))).json() == {}
            fresh = (await replica.post(HOOK, json=prompt("another session"))).json()
            assert memory["id"] in fresh["hookSpecificOutput"]["additionalContext"]
        assert (await workspace.member.post(HOOK, json=prompt("another session"))).json() == {}
    finally:
        await infra.close()


async def test_a_hook_adds_only_what_its_caller_may_read(workspace: Workspace) -> None:
    public = "Design reviews are open to everyone in the company"
    await save(workspace.member, kind="decision", body=BODY, visibility="private")
    await save(workspace.member, kind="fact", body=public, visibility="public")
    answer = await workspace.reader.post(HOOK, json=prompt("guest"))
    assert answer.status_code == 200, answer.text
    added = answer.json()["hookSpecificOutput"]["additionalContext"]
    assert public in added and BODY not in added


@pytest.mark.parametrize(
    ("body", "query", "field"),
    [
        ({"session_id": "s"}, "", "hook_event_name"),
        ({"hook_event_name": ""}, "", "hook_event_name"),
        ({"hook_event_name": "UserPromptSubmit", "prompt": ["a"]}, "", "prompt"),
        ({"hook_event_name": "SessionStart", "session_id": "s" * 300}, "", "session_id"),
        ({"hook_event_name": "SessionStart"}, "?budget=0", "budget"),
        ({"hook_event_name": "SessionStart"}, "?limit=21", "limit"),
        ({"hook_event_name": "SessionStart"}, "?min_confidence=1.5", "min_confidence"),
        ({"hook_event_name": "SessionStart"}, "?scope_path=not%20a%20node", "scope_path"),
    ],
)
async def test_bad_input_is_a_422_naming_the_field(
    workspace: Workspace, body: dict, query: str, field: str
) -> None:
    answer = await workspace.member.post(HOOK + query, json=body)
    assert answer.status_code == 422, answer.text
    assert field in answer.text


async def test_a_product_and_a_node_that_disagree_are_refused(workspace: Workspace) -> None:
    both = "?product_id=android&scope_path=product:ios"
    for event in (prompt("s"), {"hook_event_name": "SessionStart", "session_id": "s"}):
        answer = await workspace.member.post(HOOK + both, json=event)
        assert answer.status_code == 422, answer.text
