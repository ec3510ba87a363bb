"""A prompt's hook, as the use case answers it: what the session was shown is left out, what
is added is kept; when what was shown cannot be known, everything is shown and nothing is
written over what the session holds."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

from memhive_domain.agent_hooks import PROMPT, SESSION_START, HookEvent
from memhive_ports.agent_sessions import SessionKey
from memhive_query.use_cases.agent_hooks import AnswerAgentHook, HookRequest
from memhive_query.use_cases.supersession_resolver import RecalledMemory

from tests.unit.query.memories import MEMBER, memory


class Shown:
    """ShownInSessions in a dict; `known` False: the bus cannot say."""

    def __init__(self, known: bool = True) -> None:
        self.sessions: dict[SessionKey, list[str]] = {}
        self.known = known

    async def ids(self, key: SessionKey) -> list[str] | None:
        return list(self.sessions.get(key, [])) if self.known else None

    async def keep(self, key: SessionKey, memory_ids: Sequence[str]) -> None:
        self.sessions[key] = list(memory_ids)


class Recall:
    def __init__(self, *memories) -> None:
        self.memories = memories

    async def __call__(self, principal, query, selection, limit, *, min_confidence):
        return [RecalledMemory(m, 1.0, 1.0, confidence=0.9) for m in self.memories]


def _prompt(session: str = "s") -> HookRequest:
    event = HookEvent(PROMPT, session, prompt="which day are the design reviews?")
    return HookRequest(event, None, None, budget=1500, limit=5, min_confidence=0.03)


async def test_a_prompt_is_not_given_again_what_its_session_was_shown() -> None:
    one, two = memory(1), memory(2)
    shown = Shown()
    answer = AnswerAgentHook(None, Recall(one, two), shown)  # type: ignore[arg-type]
    shown.sessions[("ws", "u1", "s")] = [one.id]
    text = await answer(MEMBER, _prompt())
    assert text is not None and two.id in text and one.id not in text
    assert shown.sessions[("ws", "u1", "s")] == [one.id, two.id]
    assert await answer(MEMBER, _prompt()) is None  # nothing new: nothing added


async def test_when_what_was_shown_is_unknown_all_is_shown_and_nothing_written() -> None:
    one = memory(1)
    shown = Shown(known=False)
    shown.sessions[("ws", "u1", "s")] = ["held before"]
    text = await AnswerAgentHook(None, Recall(one), shown)(MEMBER, _prompt())  # type: ignore[arg-type]
    assert text is not None and one.id in text
    assert shown.sessions[("ws", "u1", "s")] == ["held before"]


class Context:
    """BuildContext with one packed memory line."""

    def __init__(self, packed) -> None:
        self.packed = packed

    async def __call__(self, principal, kind, query, product_id, budget, *, scope_path):
        return SimpleNamespace(text=f"## Decisions\n- [{self.packed.id}] {self.packed.body}\n")


def _start(source: str) -> HookRequest:
    event = HookEvent(SESSION_START, "s", source=source)
    return HookRequest(event, None, None, budget=1500, limit=5, min_confidence=0.03)


async def test_a_resumed_session_keeps_what_it_was_shown_a_new_context_does_not() -> None:
    packed, earlier = memory(1), memory(2)
    for source, kept in [("resume", [earlier.id, packed.id]), ("compact", [packed.id]),
                         ("clear", [packed.id]), ("startup", [packed.id])]:  # fmt: skip
        shown = Shown()
        shown.sessions[("ws", "u1", "s")] = [earlier.id]
        text = await AnswerAgentHook(Context(packed), Recall(), shown)(MEMBER, _start(source))  # type: ignore[arg-type]
        assert text is not None and packed.id in text
        assert shown.sessions[("ws", "u1", "s")] == kept, source
