"""What `memhive import` shows while an import runs: a progress bar over the gateway's
streamed outcomes, then what was created (or would be, in a dry run) and what was skipped
and why."""

from __future__ import annotations

import sys


class ImportProgress:
    def __init__(self, name: str, out=None) -> None:
        self._name, self._out = name, out or sys.stderr
        self._bar = None
        self._created: list[dict] = []
        self._skipped: list[dict] = []
        self._summary: dict | None = None
        self._error: str | None = None

    def take(self, line: dict) -> None:
        kind = line.get("type")
        if kind == "plan":
            self._start(line)
        elif kind == "item":
            (self._skipped if line["status"] == "skipped" else self._created).append(line)
            if self._bar is not None:
                self._bar.update(1)
        elif kind == "summary":
            self._summary = line
        elif kind == "error":
            self._error = line.get("detail", "the import stopped")

    def _start(self, plan: dict) -> None:
        from tqdm import tqdm

        for note in plan.get("notes", []):
            print(f"{self._name}: {note}", file=self._out)
        self._bar = tqdm(
            total=plan["total"],
            desc=self._name,
            unit="item",
            file=self._out,
            leave=False,
            disable=None,
        )  # None: no bar when not a terminal

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        for line in self.lines():
            print(line, file=self._out)

    def lines(self) -> list[str]:
        dry = bool(self._summary and self._summary.get("dry_run"))
        verb = "would create" if dry else "created"
        shown = [f"{self._name}: {len(self._created)} {verb}, {len(self._skipped)} skipped"]
        if dry:
            shown += [
                f"  line {c['line']}: {c['status']} {c['kind']} at {c['scope_path'] or '-'}"
                f"{_supersedes(c)}"
                for c in self._created
            ]
        shown += [f"  line {s['line']}: skipped: {s['reason']}" for s in self._skipped]
        if self._error or self._summary is None:
            shown.append(
                f"  stopped early: {self._error or 'the answer ended'}; importing "
                "again finishes it (what is here already is skipped)"
            )
        return shown


def _supersedes(item: dict) -> str:
    return f", superseding {', '.join(item['supersedes'])}" if item.get("supersedes") else ""
