"""Who may do what (api.md "Conventions" — Auth): one principal type and one policy table.

A bearer token speaks for one ``Principal``: the admin, the organizer of one event, a named member of
one event's staff (a scorekeeper or a judge), one entry of one event, or the monitor (the metrics
token, which reads ``GET /metrics`` and nothing else). Every protected action names its ``Access`` rule here, and ``authorize`` is the only
place that compares a principal with an event or an entry: a token never grants anything outside
its event (organizer) or its own entry and the matches it is seated at (entry).

Rulings where the spec is silent:
- The admin may do everything an organizer may, in every event.
- Any event's organizer may create players (players are shared across events); entries may not.
- An entry's own token may drop that entry and act for it in a preset's actions (a BGA finalist's
  withdrawal or registration, a Titan: The Arena finalist's choice of rules).
- Staff act only in their own event. A scorekeeper reports results at any match — final, as the
  organizer's are (``keeps_results``) —, confirms the players' claims, corrects results and rules
  on disputes, and appends to a match's game record (Strategic Titan). A judge may do all that, and
  drop entries and swap seats. Neither may change settings, register, pair, undo, advance, cancel,
  issue staff, or take a preset's own actions (a BGA table, a hero declaration, a finalist's
  choice): those stay the organizer's (and, where they may, the players').
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

from app.core.errors import Forbidden, Unauthorized
from app.core.vocabulary import Role, StaffRole


@dataclass(frozen=True)
class Principal:
    """Who is calling: the admin, the organizer of ``event_id``, or entry ``entry_id`` of ``event_id``."""

    role: Role
    event_id: str | None = None
    entry_id: str | None = None
    staff_id: str | None = None
    staff_role: StaffRole | None = None
    season_id: str | None = None

    @property
    def scope(self) -> str:
        """A stable key of the caller (idempotency keys are scoped by it)."""
        return f"{self.role}:{self.event_id or ''}:{self.entry_id or ''}"

    @property
    def actor(self) -> str:
        """How the caller is named in the audit histories (a match's, the event's)."""
        if self.role is Role.ENTRY:
            return f"entry:{self.entry_id}"
        if self.role is Role.STAFF:
            return f"staff:{self.staff_id}"
        if self.role is Role.SEASON:
            return f"season:{self.season_id}"
        return str(self.role)

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def organizes(self, event_id: str) -> bool:
        """The admin, or the organizer of this very event."""
        return self.role is Role.ADMIN or (self.role is Role.ORGANIZER and self.event_id == event_id)

    def staffs(self, event_id: str, *roles: StaffRole) -> bool:
        """A member of this event's staff (in one of ``roles``, when given)."""
        return (
            self.role is Role.STAFF and self.event_id == event_id and (not roles or self.staff_role in roles)
        )

    def keeps_results(self, event_id: str) -> bool:
        """Whose result is final at this event's matches: the organizer (or the admin) and its staff."""
        return self.organizes(event_id) or self.staffs(event_id)

    @property
    def name(self) -> str:
        """How a refusal names the caller."""
        return str(self.staff_role) if self.role is Role.STAFF else str(self.role)

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
    ORGANIZER_OR_SEATED = "the organizer, the event's staff, or an entry seated at this match"
    RESULTS = "the organizer, or a scorekeeper or judge of this event"
    JUDGE = "the organizer, or a judge of this event"
    JUDGE_OR_OWN_ENTRY = "the organizer, a judge of this event, or the entry itself"
    SEASON = "the admin or this season's organizer"
    METRICS = "the admin or the metrics token"

    @property
    def roles(self) -> tuple[str, ...]:
        """The kinds of token the rule may admit (the OpenAPI document's ``security`` names them)."""
        return _ROLES[self]


_ADMIN, _ORGANIZER, _ENTRY = ("admin",), ("admin", "organizer"), ("entry",)
_SCOREKEEPER, _JUDGE = (str(StaffRole.SCOREKEEPER),), (str(StaffRole.JUDGE),)
_ROLES: dict[Access, tuple[str, ...]] = {
    Access.ADMIN: _ADMIN,
    Access.ANY_ORGANIZER: _ORGANIZER,
    Access.ORGANIZER: _ORGANIZER,
    Access.ORGANIZER_OR_OWN_ENTRY: _ORGANIZER + _ENTRY,
    Access.ORGANIZER_OR_EVENT_ENTRY: _ORGANIZER + _ENTRY,
    Access.ORGANIZER_OR_SEATED: _ORGANIZER + _SCOREKEEPER + _JUDGE + _ENTRY,
    Access.RESULTS: _ORGANIZER + _SCOREKEEPER + _JUDGE,
    Access.JUDGE: _ORGANIZER + _JUDGE,
    Access.JUDGE_OR_OWN_ENTRY: _ORGANIZER + _JUDGE + _ENTRY,
    Access.SEASON: ("admin", "season"),
    Access.METRICS: ("admin", "monitor"),
}


def authorize(
    principal: Principal | None,
    access: Access,
    *,
    event_id: str | None = None,
    entry_id: str | None = None,
    seated: Collection[str] = (),
    season_id: str | None = None,
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
    if access is Access.SEASON:
        if principal.is_admin or (principal.role is Role.SEASON and principal.season_id == season_id):
            return principal
        raise Forbidden("only the admin or this season's organizer may do this")
    if principal.role is Role.SEASON:
        raise Forbidden("a season's token acts on its season only")
    if access is Access.ANY_ORGANIZER:
        if principal.role in (Role.ADMIN, Role.ORGANIZER):
            return principal
        raise Forbidden("only the admin or an organizer may do this")
    assert event_id is not None, f"{access} needs the event"
    if principal.organizes(event_id):
        return principal
    if principal.role is Role.STAFF:
        return _staff(principal, access, event_id)
    if access in (Access.ORGANIZER, Access.RESULTS, Access.JUDGE):
        raise Forbidden("this token does not organize this event")
    if principal.role is not Role.ENTRY or principal.event_id != event_id:
        raise Forbidden("this token belongs to another event")
    if access is Access.ORGANIZER_OR_EVENT_ENTRY:
        return principal
    if access in (Access.ORGANIZER_OR_OWN_ENTRY, Access.JUDGE_OR_OWN_ENTRY):
        if principal.entry_id == entry_id:
            return principal
        raise Forbidden("an entry token acts only for its own entry")
    if principal.entry_id in seated:
        return principal
    raise Forbidden("only the organizer or an entry seated at this match may do this")


# what each staff role may do: every rule that admits it (``_ROLES``)
def _staff(principal: Principal, access: Access, event_id: str) -> Principal:
    if principal.event_id != event_id:
        raise Forbidden("this staff token belongs to another event")
    if principal.name in access.roles:
        return principal
    raise Forbidden(f"a {principal.name} may not do this: it takes {access.value}")
