"""Errors a caller can act on. Entry points map them to HTTP 4xx or MCP tool errors."""

from __future__ import annotations

from dataclasses import dataclass


class DomainError(Exception):
    """Base for every rule the domain refuses."""


@dataclass(frozen=True, slots=True)
class FieldProblem:
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class InvalidInput(DomainError):
    """One or more fields break a rule; every problem is reported at once."""

    def __init__(self, problems: list[FieldProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


class NotFound(DomainError):
    def __init__(self, what: str, ident: str) -> None:
        self.what, self.ident = what, ident
        super().__init__(f"no {what} with id {ident!r} in this workspace")


class NotAllowed(DomainError):
    """The principal may not do this (e.g. a non-member writing)."""


class ConcurrentUpdate(DomainError):
    """Someone else changed the record since it was read; re-read and retry."""


class Unauthenticated(DomainError):
    """No credential, or one memhive does not accept (unknown, revoked, expired, forged)."""
