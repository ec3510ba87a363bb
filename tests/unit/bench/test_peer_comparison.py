"""The mem0 peer's driver and the comparison's pure parts; mem0 itself is never imported
here (it lives in its own virtualenv), so the section skips cleanly without it."""

from __future__ import annotations

import io
import json
import math
import random

import pytest

from bench import peer_comparison
from bench.peer_comparison import mem0_item, recall_at_5, render
from bench.peers import mem0_driver


def test_a_turn_goes_to_mem0_as_its_text_in_its_conversations_user() -> None:
    turn = {"id": "D1:3", "conversation": "conv-26", "speaker": "Mel", "text": "I paint."}
    assert mem0_item(turn) == {"text": "Mel: I paint.", "user_id": "conv-26", "ref": "D1:3"}


def test_recall_at_5_counts_gold_turns_in_the_first_five() -> None:
    asked = [{"evidence": ["a", "b"]}, {"evidence": ["z"]}]
    found = [["x", "a", "y", "q", "r", "b"], ["z"]]
    assert recall_at_5(found, asked) == pytest.approx((0.5 + 1.0) / 2)


def test_the_driver_reads_refs_from_mem0s_results_and_keeps_their_order() -> None:
    results = {"results": [{"metadata": {"ref": "D2:1"}}, {"metadata": None}, {}]}
    assert mem0_driver.refs_of(results) == ["D2:1", "", ""]


def test_filler_vectors_stay_unit_length_and_payloads_carry_the_scope() -> None:
    moved = mem0_driver.noisy([1.0, 0.0, 0.0], random.Random(1))
    assert math.isclose(sum(v * v for v in moved), 1.0, rel_tol=1e-9)
    payload = mem0_driver.filler_payload("a body", "product-3", "2026-01-01T00:00:00+00:00")
    assert payload["user_id"] == "product-3" and payload["data"] == "a body"


def test_percentiles_are_the_benchs_own() -> None:
    from bench.load_latency import percentiles

    samples = [float(n) for n in range(1, 101)]
    assert mem0_driver.percentiles(samples) == percentiles(samples)


def test_the_driver_answers_one_json_line_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mem0_driver.Peer, "add", lambda self, items, clients: {"n": len(items)})
    stdin = io.StringIO(json.dumps({"op": "add", "items": [{}, {}], "clients": 1}) + "\n")
    stdout = io.StringIO()
    mem0_driver.serve(stdin, stdout)
    assert [json.loads(line) for line in stdout.getvalue().splitlines()] == [{"n": 2}]


def test_ratios_are_memhive_over_mem0_in_every_row() -> None:
    row = {"p50": 20.0, "p95": 30.0, "n": 383, "r5": 0.6}
    report = {
        "mem0_load_s": 3.0,
        "sequential": {"memhive": 30.0, "mem0": 40.0},
        "concurrent": {"memhive": 100.0, "mem0": 50.0},
        "sizes": {5000: {"memhive": row, "mem0": row | {"p50": 100.0, "p95": 150.0}}},
    }
    text = render(report)
    assert "| adds/s, 1 client in sequence | 30.0 | 40.0 | 0.75 |" in text
    assert "| adds/s, 16 clients | 100.0 | 50.0 | 2.00 |" in text
    assert "| search p50 at 5,000 memories (ms) | 20.0 | 100.0 | 0.20 |" in text


async def test_without_the_peers_virtualenv_the_section_says_how_to_make_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(peer_comparison, "MEM0_PYTHON", tmp_path / "absent" / "bin" / "python")
    text = await peer_comparison.section(stack=None)
    assert "make bench PEERS=mem0" in text
