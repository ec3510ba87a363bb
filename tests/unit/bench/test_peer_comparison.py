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
        "sequential": {
            "memhive": 30.0,
            "mem0": 40.0,
            "ratio": 0.7,
            "rounds": [{"memhive": 30.0, "mem0": 40.0}, {"memhive": 28.0, "mem0": 44.0}],
        },
        "concurrent": {"memhive": 100.0, "mem0": 50.0},
        "sizes": {5000: {"memhive": row, "mem0": row | {"p50": 100.0, "p95": 150.0}}},
    }
    text = render(report)
    assert (
        "| adds/s, 1 client in sequence (median of 2 rounds; ratio: the rounds' median) "
        "| 30.0 | 40.0 | 0.70 |"
    ) in text
    assert "by round, memhive / mem0 (per s): 30.0 / 40.0, 28.0 / 44.0." in text
    assert "| adds/s, 16 clients | 100.0 | 50.0 | 2.00 |" in text
    assert "| search p50 at 5,000 memories (ms) | 20.0 | 100.0 | 0.20 |" in text


async def test_without_the_peers_virtualenv_the_section_says_how_to_make_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(peer_comparison, "MEM0_PYTHON", tmp_path / "absent" / "bin" / "python")
    text = await peer_comparison.section(stack=None)
    assert "make bench PEERS=mem0" in text


async def test_sequential_adds_take_turns_round_by_round_on_the_same_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each round gives both sides the same turns; the ratio is the median of the rounds'
    ratios, not the ratio of the medians (a round where both were slow is one round)."""
    ours, theirs, asked = iter([40.0, 60.0, 45.0]), iter([50.0, 50.0, 90.0]), []

    async def memhive_adds(client, batch, clients):
        asked.append(("memhive", [t["id"] for t in batch], clients))
        return next(ours)

    class Peer:
        def ask(self, op, items, clients):
            asked.append(("mem0", [i["ref"] for i in items], clients))
            return {"per_s": next(theirs)}

    monkeypatch.setattr(peer_comparison, "memhive_adds", memhive_adds)
    monkeypatch.setattr(peer_comparison, "SEQUENTIAL", 2)
    turns = [{"id": f"D1:{n}", "conversation": "c", "speaker": "A", "text": "t"} for n in range(6)]
    report = await peer_comparison.sequential_rounds(None, Peer(), turns)
    assert asked == [
        ("memhive", ["D1:0", "D1:1"], 1),
        ("mem0", ["D1:0", "D1:1"], 1),
        ("memhive", ["D1:2", "D1:3"], 1),
        ("mem0", ["D1:2", "D1:3"], 1),
        ("memhive", ["D1:4", "D1:5"], 1),
        ("mem0", ["D1:4", "D1:5"], 1),
    ]
    assert (report["memhive"], report["mem0"]) == (45.0, 50.0)
    assert report["ratio"] == pytest.approx(0.8)  # of 0.8, 1.2 and 0.5
