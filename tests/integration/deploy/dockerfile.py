"""Reading the Dockerfile and .dockerignore the way `docker build` does, for the subset we
use: the builder stage's COPY sources, its `uv sync` step and the runtime stage's ENV."""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stage:
    name: str | None
    instructions: list[tuple[str, str]]  # (INSTRUCTION, arguments), continuations joined

    def copy_sources(self) -> list[str]:
        """Sources of every COPY from the build context (not `--from=` another stage)."""
        sources = []
        for op, args in self.instructions:
            if op != "COPY":
                continue
            words = shlex.split(args)
            if any(w.startswith("--from") for w in words):
                continue
            paths = [w for w in words if not w.startswith("--")]
            sources += paths[:-1]
        return sources

    def run_commands(self) -> list[str]:
        return [_strip_mounts(args) for op, args in self.instructions if op == "RUN"]

    def env(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for op, args in self.instructions:
            if op == "ENV":
                found.update(dict(w.split("=", 1) for w in shlex.split(args)))
        return found


def parse_stages(dockerfile: Path) -> list[Stage]:
    stages: list[Stage] = []
    for op, args in _instructions(dockerfile.read_text()):
        if op == "FROM":
            match = re.search(r"\s+AS\s+(\S+)", args, re.IGNORECASE)
            stages.append(Stage(match.group(1) if match else None, []))
        elif stages:
            stages[-1].instructions.append((op, args))
    return stages


def _instructions(text: str) -> list[tuple[str, str]]:
    joined = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")),
    )
    found = []
    for line in joined.splitlines():
        if line.strip():
            op, _, args = line.strip().partition(" ")
            found.append((op.upper(), args.strip()))
    return found


def _strip_mounts(command: str) -> str:
    return re.sub(r"--mount=\S+\s*", "", command).strip()


class DockerIgnore:
    """`.dockerignore` rules: patterns relative to the context root, `**` for any depth,
    `!` re-includes, the last matching rule wins (as in Docker's moby/patternmatcher)."""

    def __init__(self, text: str) -> None:
        self._rules: list[tuple[bool, str]] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            pattern = line.lstrip("!").strip().strip("/")
            self._rules.append((negated, pattern))

    def excludes(self, relative: str) -> bool:
        excluded = False
        parts = relative.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for negated, pattern in self._rules:
            # A rule that matches a parent directory excludes everything under it.
            if any(_match(pattern, prefix) for prefix in prefixes):
                excluded = not negated
        return excluded


def _match(pattern: str, path: str) -> bool:
    if pattern.startswith("**/"):
        tail = pattern[3:]
        return _match(tail, path) or any(
            _match(tail, "/".join(path.split("/")[i:])) for i in range(1, path.count("/") + 1)
        )
    return path.count("/") == pattern.count("/") and fnmatch.fnmatchcase(path, pattern)


def build_context(root: Path, sources: list[str], ignore: DockerIgnore, into: Path) -> list[str]:
    """Copies what `COPY <sources>` would see from the context at `root` (after
    .dockerignore) into `into`; returns the relative paths copied."""
    copied = []
    for source in sources:
        base = root / source
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            relative = path.relative_to(root).as_posix()
            if ignore.excludes(relative):
                continue
            target = into / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            copied.append(relative)
    return copied
