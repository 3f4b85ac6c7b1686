"""An event's audit trail (``EventHistory``): what the organizer changed outside the results —
an undone round, a swap, an identity split, entries dropped at check-in, a cancellation. A match's
results keep their own history (``ResultHistory``, app/services/results.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Principal
from app.db.models import EventHistory
from app.services.reads import get_event


def record(
    session: AsyncSession, event_id: str, action: str, principal: Principal | None, payload: dict[str, Any]
) -> EventHistory:
    """Add one line to the event's history (in the caller's transaction)."""
    row = EventHistory(
        event_id=event_id,
        action=action,
        actor=principal.actor if principal is not None else "system",
        payload=payload,
    )
    session.add(row)
    return row


async def event_history(session: AsyncSession, event_id: str) -> list[EventHistory]:
    await get_event(session, event_id)
    rows = await session.execute(
        select(EventHistory)
        .where(EventHistory.event_id == event_id)
        .order_by(EventHistory.created_at, EventHistory.id)
    )
    return list(rows.scalars())
