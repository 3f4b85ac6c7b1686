"""Typed domain errors, raised in core and services, mapped once to problem+json in api/.

Two kinds, as in Tabbycat: errors the user can fix (bad input, a broken rule, a state
conflict) and everything else, which is a bug and surfaces as a 500.
"""

from __future__ import annotations

from dataclasses import dataclass


class DomainError(Exception):
    """Base of every error a client can fix."""

    status = 400
    title = "Bad request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Problem:
    """One validation problem: where (a path of keys/indices) and what."""

    loc: tuple[str | int, ...]
    msg: str


class InvalidInput(DomainError):
    """Input that cannot be accepted (422). Carries every problem found, each with its location."""

    status = 422
    title = "Invalid input"

    def __init__(self, detail: str, problems: list[Problem] | None = None) -> None:
        super().__init__(detail)
        self.problems = problems or [Problem((), detail)]


class RuleViolation(DomainError):
    """A game's or format's rule is broken (422). ``rule`` names the rule, e.g. "4.2"."""

    status = 422
    title = "Rule violation"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"rule {rule}: {message}")
        self.rule = rule
        self.message = message


class NotFound(DomainError):
    status = 404
    title = "Not found"


class Conflict(DomainError):
    """The request does not fit the resource's current state (409)."""

    status = 409
    title = "Conflict"


class RuleConflict(Conflict):
    """A rule refuses the request in the resource's current state (409); ``rule`` names it."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"rule {rule}: {message}")
        self.rule = rule
        self.message = message


class PreconditionFailed(DomainError):
    """A stale ``If-Match`` version (412)."""

    status = 412
    title = "Precondition failed"


class Forbidden(DomainError):
    status = 403
    title = "Forbidden"


class Unauthorized(DomainError):
    status = 401
    title = "Unauthorized"


class PreconditionRequired(DomainError):
    """A change that needs ``If-Match`` arrived without it (428)."""

    status = 428
    title = "Precondition required"


class Busy(DomainError):
    """The server cannot take this computation now (503, with ``Retry-After``): the tools' threads
    are all taken, or the computation ran past its time budget."""

    status = 503
    title = "Service unavailable"

    def __init__(self, detail: str, retry_after: int = 5) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
