"""Where a running `memhive run` listens, so every other command finds it by itself.

- `memhive run` writes `<data dir>/instance.json` (mode 0600: its HTTP URL, bus URL, pid and
  data dir) once its HTTP server listens, and a pointer to that data dir in the user's
  registry (`$XDG_RUNTIME_DIR/memhive/instances/`, else `$XDG_STATE_HOME/memhive/instances/`,
  else `~/.local/state/memhive/instances/`), so a shell in another directory finds it too.
  Both are removed on a clean exit.
- A record whose process is gone (kill -9, a crash) or is no longer a `memhive run` is stale
  and ignored.
- A command looks at MEMHIVE_DATA_DIR's instance when that is set; otherwise at ./.memhive's,
  then in the registry: one live instance there is the one; several are an error naming them.

Light on purpose (json, os, pathlib): every CLI command reads it before anything else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from memhive_cli.private_files import write_private_json

INSTANCE_FILE = "instance.json"
DEFAULT_DATA_DIR = ".memhive"


class SeveralInstances(RuntimeError):
    """More than one `memhive run` is up and nothing says which one is meant."""


@dataclass(frozen=True, slots=True)
class Instance:
    data_dir: Path
    http_url: str
    bus_url: str
    pid: int

    def describe(self) -> str:
        where = f"bus {self.bus_url}, pid {self.pid}, data {self.data_dir}"
        return f"memhive at {self.http_url} ({where})"


def write_instance(instance: Instance, environ: Mapping[str, str]) -> None:
    record = {**asdict(instance), "data_dir": str(instance.data_dir)}
    write_private_json(instance.data_dir / INSTANCE_FILE, record)
    write_private_json(_pointer(instance.data_dir, environ), {"data_dir": str(instance.data_dir)})


def remove_instance(instance: Instance, environ: Mapping[str, str]) -> None:
    """Only this process's own record: a newer one on the same data dir is left alone."""
    if read_instance(instance.data_dir) == instance:
        (instance.data_dir / INSTANCE_FILE).unlink(missing_ok=True)
    _pointer(instance.data_dir, environ).unlink(missing_ok=True)


def read_instance(data_dir: Path) -> Instance | None:
    """The live instance recorded in `data_dir`, or None (none recorded, or stale)."""
    try:
        record = json.loads((data_dir / INSTANCE_FILE).read_text())
        instance = Instance(
            Path(record["data_dir"]), record["http_url"], record["bus_url"], int(record["pid"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return instance if is_running(instance.pid) else None


def find_instance(environ: Mapping[str, str]) -> Instance | None:
    """The instance a command in this environment talks to, or None."""
    if "MEMHIVE_DATA_DIR" in environ:
        return read_instance(Path(environ["MEMHIVE_DATA_DIR"]).absolute())
    here = read_instance(Path(DEFAULT_DATA_DIR).absolute())
    if here is not None:
        return here
    running = sorted(_registered(environ), key=lambda i: str(i.data_dir))
    if len(running) > 1:
        listed = "; ".join(str(i.data_dir) for i in running)
        raise SeveralInstances(
            f"{len(running)} memhive instances are running ({listed}): set MEMHIVE_DATA_DIR "
            "to the data directory of the one you mean"
        )
    return running[0] if running else None


def is_running(pid: int) -> bool:
    """A live `memhive run` (a pid reused by another program is not)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    argv = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
    return "run" in argv and any("memhive" in a for a in argv)


def registry_dir(environ: Mapping[str, str]) -> Path:
    if environ.get("XDG_RUNTIME_DIR"):
        return Path(environ["XDG_RUNTIME_DIR"]) / "memhive" / "instances"
    state = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")) / ".local/state")
    return Path(state).expanduser() / "memhive" / "instances"


def _registered(environ: Mapping[str, str]) -> Iterator[Instance]:
    directory = registry_dir(environ)
    for pointer in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            instance = read_instance(Path(json.loads(pointer.read_text())["data_dir"]))
            if instance is not None:
                yield instance


def _pointer(data_dir: Path, environ: Mapping[str, str]) -> Path:
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    return registry_dir(environ) / f"{digest}.json"
