"""What a failed call raises: the server's `detail` and, for 422, its `problems`."""

from __future__ import annotations

from dataclasses import dataclass

import httpx


@dataclass(frozen=True, slots=True)
class Problem:
    field: str
    message: str


class MemhiveError(Exception):
    """Any answer memhive refused; `status` is the HTTP status, `body` the JSON answer."""

    def __init__(self, status: int, detail: str, body: object = None) -> None:
        super().__init__(f"{status}: {detail}")
        self.status, self.detail, self.body = status, detail, body
        problems = body.get("problems", []) if isinstance(body, dict) else []
        self.problems = [Problem(p.get("field", ""), p.get("message", "")) for p in problems]


class Unauthorized(MemhiveError):
    """401: no token, or one memhive does not know."""


class Forbidden(MemhiveError):
    """403: the token may not do this (e.g. a read-only token forgetting)."""


class NotFound(MemhiveError):
    """404: unknown, forgotten, expired, or not visible to this token."""


class Conflict(MemhiveError):
    """409: near-duplicates exist (`similar` lists them: save again with force or
    supersedes), or a key/value entry is not at the revision asked for (`current_revision`:
    its revision now, None when it does not exist)."""

    @property
    def similar(self) -> list[dict]:
        return self.body.get("similar", []) if isinstance(self.body, dict) else []

    @property
    def current_revision(self) -> int | None:
        return self.body.get("current_revision") if isinstance(self.body, dict) else None


class InvalidRequest(MemhiveError):
    """422: `problems` names each field that is wrong."""


class Unavailable(MemhiveError):
    """429 or 503 still, after every retry."""


_BY_STATUS: dict[int, type[MemhiveError]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: InvalidRequest,
    429: Unavailable,
    503: Unavailable,
}


def raise_for(response: httpx.Response) -> None:
    if response.is_success:
        return
    try:
        body = response.json()
    except ValueError:
        body = response.text
    detail = body.get("detail", "") if isinstance(body, dict) else str(body)
    error = _BY_STATUS.get(response.status_code, MemhiveError)
    raise error(response.status_code, str(detail) or response.reason_phrase, body)
