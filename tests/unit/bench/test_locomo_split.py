"""The LoCoMo bench reads the public split, or stops: never a score over no question."""

from pathlib import Path

import pytest

from bench import locomo


def test_the_split_beside_the_checkout_is_found() -> None:
    if not locomo.LOCOMO_DIR.is_dir():
        pytest.skip(f"the public split is not beside this checkout ({locomo.LOCOMO_DIR})")
    assert locomo.conversations()


def test_a_folder_without_the_split_stops_the_bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conv-1.queries.jsonl").write_text("{}\n")  # questions without their turns
    monkeypatch.setattr(locomo, "LOCOMO_DIR", tmp_path)
    with pytest.raises(SystemExit, match="MEMHIVE_LOCOMO_DIR"):
        locomo.conversations()
