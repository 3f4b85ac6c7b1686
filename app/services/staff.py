"""An event's staff (api.md "Staff"): the organizer names scorekeepers and judges, each with a token
of its own shown once, lists them and revokes them. What each role may do is the access policy's
(``app/core/access.py``); every change a member makes is kept in the audit histories under its
name in them, ``staff:<id>``, which the list resolves (a revoked member stays listed)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Principal
from app.core.errors import NotFound
from app.core.vocabulary import StaffRole
from app.db.base import utcnow
from app.db.models import Staff
from app.services.history import record
from app.services.reads import get_event
from app.services.tokens import hash_token, new_token


async def issue(
    session: AsyncSession, event_id: str, name: str, role: StaffRole, who: Principal
) -> tuple[Staff, str]:
    """A new member of the event's staff and its token (returned once; only its hash is kept)."""
    await get_event(session, event_id)
    token = new_token()
    member = Staff(
        event_id=event_id, name=name, role=str(role), token_hash=hash_token(token), created_by=who.actor
    )
    session.add(member)
    await session.flush()
    record(session, event_id, "staff.issued", who, {"staff_id": member.id, "name": name, "role": str(role)})
    return member, token


async def list_staff(session: AsyncSession, event_id: str) -> list[Staff]:
    """Every member the event has had, in the order they were named, revoked ones too."""
    await get_event(session, event_id)
    rows = await session.execute(
        select(Staff).where(Staff.event_id == event_id).order_by(Staff.created_at, Staff.id)
    )
    return list(rows.scalars())


async def revoke(session: AsyncSession, event_id: str, staff_id: str, who: Principal) -> None:
    """Refuse the member's token from now on (revoking twice changes nothing more)."""
    member = await session.get(Staff, staff_id, with_for_update=True)
    if member is None or member.event_id != event_id:
        raise NotFound(f"staff member {staff_id} not found in event {event_id}")
    if member.revoked_at is None:
        member.revoked_at = utcnow()
        record(session, event_id, "staff.revoked", who, {"staff_id": member.id, "name": member.name})


async def member(session: AsyncSession, event_id: str, staff_id: str) -> Staff:
    """One member of the event's staff (the console names who is signed in)."""
    found = await session.get(Staff, staff_id)
    if found is None or found.event_id != event_id:
        raise NotFound(f"staff member {staff_id} not found in event {event_id}")
    return found
