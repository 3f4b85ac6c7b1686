"""Who a bearer token speaks for (api.md "Authentication and tokens"): the one lookup of a token.

Tokens are never stored: an event keeps its organizer token's SHA-256 and an entry its own token's
(``hash_token``), so a copy of the database names no token. The admin and the metrics tokens are
settings, compared in constant time; every other token is found by one statement, built once, that
asks the four tables that hold them (events, staff, entries, seasons) for its digest; a revoked staff
token is no token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from sqlalchemy import String, bindparam, literal, null, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.core.access import Principal
from app.core.errors import Unauthorized
from app.core.vocabulary import Role, StaffRole
from app.db.models import Entry, Event, Season, Staff


def new_token() -> str:
    """A token to hand out once (an event's organizer, a staff member, an entry): 256 random bits."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What is stored of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def _token_lookup() -> Any:
    """The event a token organizes, the staff member (and its event and role) or the entry (and its
    event) it speaks for: one statement, built once (``digest`` bound at each call). ``id`` is the
    entry's or the staff member's, ``staff_role`` the member's role."""
    digest = bindparam("digest", type_=String)
    organizer = select(
        literal(Role.ORGANIZER.value).label("role"),
        Event.id.label("event_id"),
        null().label("id"),
        null().label("staff_role"),
    ).where(Event.organizer_token_hash == digest)
    staff = select(
        literal(Role.STAFF.value).label("role"),
        Staff.event_id.label("event_id"),
        Staff.id.label("id"),
        Staff.role.label("staff_role"),
    ).where(Staff.token_hash == digest, Staff.revoked_at.is_(None))
    entry = select(
        literal(Role.ENTRY.value).label("role"),
        Entry.event_id.label("event_id"),
        Entry.id.label("id"),
        null().label("staff_role"),
    ).where(Entry.token_hash == digest)
    season = select(
        literal(Role.SEASON.value).label("role"),
        null().label("event_id"),
        Season.id.label("id"),
        null().label("staff_role"),
    ).where(Season.token_hash == digest)
    return union_all(organizer, staff, entry, season)


_TOKEN_LOOKUP = _token_lookup()


async def principal_of_token(
    session: AsyncSession | AsyncConnection,
    token: str,
    *,
    admin_token: str | None = None,
    metrics_token: str | None = None,
) -> Principal:
    """The principal a token speaks for: the admin, the monitor, an event's organizer, a member of
    its staff or one of its entries; an unknown (or revoked) token is ``Unauthorized``."""
    if admin_token and _same(token, admin_token):
        return Principal(Role.ADMIN)
    if metrics_token and _same(token, metrics_token):
        return Principal(Role.MONITOR)
    row = (await session.execute(_TOKEN_LOOKUP, {"digest": hash_token(token)})).first()
    if row is None:
        raise Unauthorized("unknown token")
    if row.role == Role.ORGANIZER.value:
        return Principal(Role.ORGANIZER, event_id=row.event_id)
    if row.role == Role.STAFF.value:
        return Principal(
            Role.STAFF, event_id=row.event_id, staff_id=row.id, staff_role=StaffRole(row.staff_role)
        )
    if row.role == Role.SEASON.value:
        return Principal(Role.SEASON, season_id=row.id)
    return Principal(Role.ENTRY, event_id=row.event_id, entry_id=row.id)
