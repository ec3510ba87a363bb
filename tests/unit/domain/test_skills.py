"""Skills: SKILL.md front matter parses as YAML with provenance, steps come from the body,
names are checked, and only confirmed, unflagged, unpromoted procedures are candidates."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml
from memhive_domain.curation import Curation, Flag, FlagKind
from memhive_domain.errors import InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.skills import (
    checked_procedures,
    is_promotion_candidate,
    render_skill,
    skill_name,
    steps_of,
)

from tests.unit.query.memories import NOW, memory


def procedure(n: int = 1, body: str = "Run make ship. Then tag: v1 # done", **state: object):
    return replace(memory(n, body=body), kind=MemoryKind.PROCEDURE, curation=Curation(**state))


def test_skill_md_has_yaml_front_matter_with_provenance_and_numbered_steps() -> None:
    first, second = procedure(1, confirmations=4), procedure(2, body="1. Build\n2. Push\n")
    text = render_skill("ship-it", 'Ship: the "usual" way', [first, second], NOW)
    _, front, rest = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    assert (meta["name"], meta["description"]) == ("ship-it", 'Ship: the "usual" way')
    assert [m["id"] for m in meta["metadata"]["memories"]] == [first.id, second.id]
    assert meta["metadata"]["memories"][0]["confirmations"] == 4
    assert "1. Run make ship.\n2. Then tag: v1 # done" in rest
    assert "## Steps (2)\n\n1. Build\n2. Push" in rest
    assert f"memory `{first.id}` revision 1" in rest


def test_steps_come_from_list_lines_or_sentences() -> None:
    assert steps_of("- a\n- b") == ["a", "b"]
    assert steps_of("Do a. Do b!") == ["Do a.", "Do b!"]


def test_names_are_given_or_derived_and_checked() -> None:
    assert skill_name(None, procedure(body="Deploy the iOS app to TestFlight now")) == (
        "deploy-the-ios-app-to-testflight"
    )
    assert skill_name("release-2", procedure()) == "release-2"
    for bad in ("Release", "a--b", "x" * 65, "-a"):
        with pytest.raises(InvalidInput, match="name"):
            skill_name(bad, procedure())


def test_only_procedures_crystallize() -> None:
    with pytest.raises(InvalidInput, match="ids"):
        checked_procedures([procedure(1), memory(2)])


def test_candidates_are_confirmed_unflagged_unpromoted_procedures() -> None:
    assert is_promotion_candidate(procedure(confirmations=3))
    assert not is_promotion_candidate(procedure(confirmations=2))
    assert not is_promotion_candidate(procedure(confirmations=3, promoted_at=NOW))
    wrong = (Flag("f", FlagKind.WRONG, "no", "u", NOW),)
    assert not is_promotion_candidate(procedure(confirmations=5, flags=wrong))
    assert not is_promotion_candidate(replace(memory(1), curation=Curation(confirmations=9)))
