"""Clients saving and recalling against `memhive run` while a fault is injected.

Every answer is kept (what was asked, when, how long it took, the status and Retry-After),
and every acknowledged save (201 or 202: durable on the bus) is remembered by its body, so
a test can check each one is kept exactly once afterwards. No client retries: an answer is
the answer to its one request.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import httpx

from tests.e2e.process import TOKEN

COLOURS = ["amber", "cobalt", "crimson", "jade", "ochre", "violet", "teal", "umber"]
THINGS = ["kettle", "glacier", "violin", "lantern", "harbour", "meadow", "compass", "orchard"]
ACKNOWLEDGED = (201, 202)


@dataclass(frozen=True, slots=True)
class Answer:
    kind: str  # "save" or "recall"
    asked_at: float  # time.monotonic()
    seconds: float
    status: int | None  # None: no answer at all (the connection failed)
    retry_after: str | None
    detail: str

    @property
    def ended_at(self) -> float:
        return self.asked_at + self.seconds


def body_of(tag: str, writer: int, n: int) -> str:
    colour, thing = COLOURS[n % 8], THINGS[(n // 8 + writer) % 8]
    return f"{tag} note w{writer}n{n}: the {colour} {thing} checklist lives in drawer {n * 7 + 3}"


class Workload:
    def __init__(self, url: str, tag: str, savers: int = 2, recallers: int = 1) -> None:
        self.url, self.tag = url, tag
        self.acked: dict[str, str] = {}
        self.answers: list[Answer] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._save, args=(w,), daemon=True) for w in range(savers)
        ] + [threading.Thread(target=self._recall, daemon=True) for _ in range(recallers)]

    def __enter__(self) -> Workload:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def wait_for_acks(self, count: int, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.acked) < count:
            assert time.monotonic() < deadline, f"only {len(self.acked)} saves acknowledged"
            time.sleep(0.1)

    def wait_for_answer(self, kind: str, status: int, timeout_s: float = 60) -> None:
        """Until one of the clients has had `status` to a `kind` request."""
        deadline = time.monotonic() + timeout_s
        while not any(a.kind == kind and a.status == status for a in self.answers):
            seen = sorted({a.status for a in self.answers if a.kind == kind}, key=str)
            assert time.monotonic() < deadline, f"no {kind} answered {status}; seen {seen}"
            time.sleep(0.1)

    def _save(self, writer: int) -> None:
        with self._client() as http:
            n = 0
            while not self._stop.is_set():
                body = body_of(self.tag, writer, n)
                json = {"kind": "fact", "body": body, "force": True}
                answer, reply = self._ask(http, "save", "POST", "/v1/memories", json)
                if answer.status in ACKNOWLEDGED:
                    self.acked[body] = reply["id"]
                n += 1
                time.sleep(0.05)

    def _recall(self) -> None:
        with self._client() as http:
            while not self._stop.is_set():
                query = {"query": f"{self.tag} checklist in the drawer", "max_results": 5}
                self._ask(http, "recall", "POST", "/v1/recall", query)
                time.sleep(0.1)

    def _ask(self, http: httpx.Client, kind: str, method: str, path: str, json: dict):
        asked = time.monotonic()
        try:
            response = http.request(method, path, json=json)
        except httpx.TransportError as exc:
            self.answers.append(Answer(kind, asked, time.monotonic() - asked, None, None,
                                       repr(exc)))  # fmt: skip
            return self.answers[-1], {}
        answer = Answer(kind, asked, time.monotonic() - asked, response.status_code,
                        response.headers.get("Retry-After"), response.text[:300])  # fmt: skip
        self.answers.append(answer)
        return answer, response.json() if response.status_code in ACKNOWLEDGED else {}

    def _client(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)
