"""TiktokenCounter in a fresh interpreter with the network closed, and the shape of its counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter

TEXTS = [
    "Use uv, never pip, to add dependencies to this repository.",
    "The deploy failed because the database migration timed out after 30 s.",
    "Alice prefers short answers with code first; Bob wants the reasoning.",
    "Ünïcödé, emoji 🚀 and a URL: https://example.com/a?b=c",
]

# Runs before anything of ours is imported: any socket use raises, so a download cannot hide.
OFFLINE_SCRIPT = """
import json, socket, sys
def refuse(*args, **kwargs):
    raise RuntimeError("network access attempted")
socket.socket.connect = refuse
socket.create_connection = refuse
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter
counter = TiktokenCounter()
print(json.dumps([counter.count(text) for text in json.loads(sys.argv[1])]))
"""


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def test_loads_and_counts_in_a_fresh_process_with_the_network_blocked(
    counter: TiktokenCounter, tmp_path: Path
) -> None:
    empty_cache = tmp_path / "tiktoken-cache"
    empty_cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(empty_cache), "HTTPS_PROXY": "http://0.0.0.0:9"}
    completed = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT, json.dumps(TEXTS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == [counter.count(text) for text in TEXTS]
    assert list(empty_cache.iterdir()) == []  # nothing fetched into tiktoken's cache


def test_counts_are_positive_and_between_words_and_characters(counter: TiktokenCounter) -> None:
    for text in TEXTS:
        assert len(text.split()) <= counter.count(text) <= len(text)


def test_counts_are_stable(counter: TiktokenCounter) -> None:
    first = [counter.count(text) for text in TEXTS]
    assert [TiktokenCounter().count(text) for text in TEXTS] == first


def test_counts_are_nearly_additive(counter: TiktokenCounter) -> None:
    parts = [counter.count(text) for text in TEXTS]
    joined = counter.count("\n\n".join(TEXTS))
    # Each separator is a token or merges into a neighbour; merges can only save a few.
    assert sum(parts) - len(TEXTS) <= joined <= sum(parts) + len(TEXTS) - 1


def test_longer_text_counts_more(counter: TiktokenCounter) -> None:
    text = TEXTS[0]
    assert counter.count(text * 10) > 9 * counter.count(text)
