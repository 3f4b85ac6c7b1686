"""Who may do what (api.md "Conventions" — Auth): one principal type and one policy table.

A bearer token speaks for one ``Principal``: the admin, the organizer of one event, one entry of
one event, or the monitor (the metrics token, which reads ``GET /metrics`` and nothing else). Every protected action names its ``Access`` rule here, and ``authorize`` is the only
place that compares a principal with an event or an entry: a token never grants anything outside
its event (organizer) or its own entry and the matches it is seated at (entry).

Rulings where the spec is silent:
- The admin may do everything an organizer may, in every event.
- Any event's organizer may create players (players are shared across events); entries may not.
- An entry's own token may drop that entry and act for it in a preset's actions (a BGA finalist's
  withdrawal or registration, a Titan: The Arena finalist's choice of rules).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

from app.core.errors import Forbidden, Unauthorized
from app.core.vocabulary import Role


@dataclass(frozen=True)
class Principal:
    """Who is calling: the admin, the organizer of ``event_id``, or entry ``entry_id`` of ``event_id``."""

    role: Role
    event_id: str | None = None
    entry_id: str | None = None

    @property
    def scope(self) -> str:
        """A stable key of the caller (idempotency keys are scoped by it)."""
        return f"{self.role}:{self.event_id or ''}:{self.entry_id or ''}"

    @property
    def actor(self) -> str:
        """How the caller is named in a match's audit history."""
        return f"entry:{self.entry_id}" if self.role is Role.ENTRY else str(self.role)

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def organizes(self, event_id: str) -> bool:
        """The admin, or the organizer of this very event."""
        return self.role is Role.ADMIN or (self.role is Role.ORGANIZER and self.event_id == event_id)

    def is_entry_of(self, event_id: str, entry_id: str | None = None) -> bool:
        """An entry of this event (and, when given, this very entry)."""
        return (
            self.role is Role.ENTRY
            and self.event_id == event_id
            and (entry_id is None or self.entry_id == entry_id)
        )


class Access(Enum):
    """The rules a protected action names."""

    ADMIN = "the admin"
    ANY_ORGANIZER = "the admin or an organizer"
    ORGANIZER = "the organizer of this event"
    ORGANIZER_OR_OWN_ENTRY = "the organizer, or the entry itself"
    ORGANIZER_OR_EVENT_ENTRY = "the organizer, or an entry of this event"
    ORGANIZER_OR_SEATED = "the organizer, or an entry seated at this match"
    METRICS = "the admin or the metrics token"


def authorize(
    principal: Principal | None,
    access: Access,
    *,
    event_id: str | None = None,
    entry_id: str | None = None,
    seated: Collection[str] = (),
) -> Principal:
    """The principal when ``access`` lets it act (on ``event_id``; for ``entry_id``; at a match whose
    seats are ``seated``); otherwise 401 without a token, 403 with the wrong one."""
    if principal is None:
        raise Unauthorized(f"a token of {access.value} is required")
    if access is Access.ADMIN:
        if principal.is_admin:
            return principal
        raise Forbidden("only the admin may do this")
    if access is Access.METRICS:
        if principal.role in (Role.ADMIN, Role.MONITOR):
            return principal
        raise Forbidden("only the admin or the metrics token may read the metrics")
    if principal.role is Role.MONITOR:
        raise Forbidden("the metrics token reads only /metrics")
    if access is Access.ANY_ORGANIZER:
        if principal.role in (Role.ADMIN, Role.ORGANIZER):
            return principal
        raise Forbidden("only the admin or an organizer may do this")
    assert event_id is not None, f"{access} needs the event"
    if principal.organizes(event_id):
        return principal
    if access is Access.ORGANIZER:
        raise Forbidden("this token does not organize this event")
    if principal.role is not Role.ENTRY or principal.event_id != event_id:
        raise Forbidden("this token belongs to another event")
    if access is Access.ORGANIZER_OR_EVENT_ENTRY:
        return principal
    if access is Access.ORGANIZER_OR_OWN_ENTRY:
        if principal.entry_id == entry_id:
            return principal
        raise Forbidden("an entry token acts only for its own entry")
    if principal.entry_id in seated:
        return principal
    raise Forbidden("only the organizer or an entry seated at this match may do this")
