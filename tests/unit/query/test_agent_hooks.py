"""What each session was shown, as the gateway remembers it: so a prompt is not given again
what its session already has, within a bound on the gateway's memory."""

from __future__ import annotations

from memhive_query.use_cases.agent_hooks import ShownInSessions


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_session_remembers_what_it_was_shown_and_a_new_context_starts_over() -> None:
    shown = ShownInSessions()
    one, two = ("ws", "u", "s1"), ("ws", "u", "s2")
    assert shown.ids(one) == set()
    shown.add(one, ["a", "b"])
    shown.add(one, ["b", "c"])
    assert shown.ids(one) == {"a", "b", "c"} and shown.ids(two) == set()
    assert shown.ids(("ws", "another user", "s1")) == set()
    shown.start_over(one, ["z"])
    assert shown.ids(one) == {"z"}


def test_a_session_keeps_its_latest_ids_and_the_least_recently_used_sessions_go() -> None:
    shown = ShownInSessions(max_sessions=2, max_ids=3)
    shown.add(("w", "u", "a"), ["1", "2", "3", "4"])
    assert shown.ids(("w", "u", "a")) == {"2", "3", "4"}
    shown.add(("w", "u", "b"), ["x"])
    shown.add(("w", "u", "a"), ["5"])  # a used again: b is now the least recent
    shown.add(("w", "u", "c"), ["y"])
    assert shown.ids(("w", "u", "b")) == set()
    assert shown.ids(("w", "u", "a")) == {"3", "4", "5"} and shown.ids(("w", "u", "c")) == {"y"}


def test_an_idle_session_is_forgotten() -> None:
    clock = Clock()
    shown = ShownInSessions(idle_s=60, monotonic=clock)
    shown.add(("w", "u", "s"), ["a"])
    clock.now = 61
    assert shown.ids(("w", "u", "s")) == set()
    shown.add(("w", "u", "s"), ["b"])
    assert shown.ids(("w", "u", "s")) == {"b"}
