"""What a hall sees besides pairings and standings (api.md "Announcements", "The round clock"):
the organizer's announcements, and the round clock — started, paused, resumed, extended and
stopped by the organizer or a judge, and announced on the live stream and to webhooks, time's
up included. The clock's rules are ``app/core/clock.py``'s; this module keeps its one row an event
and says when its time is up (``expire_due``: every API process calls it about once a second; a
conditional update makes the moment announced once, whichever process sees it first)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import clock as core
from app.core.access import Principal
from app.core.clock import Clock, ClockAction, ClockState
from app.core.errors import InvalidInput, Problem
from app.core.vocabulary import LiveEventType
from app.db.base import utcnow
from app.db.models import Announcement, Match, RoundClock
from app.services import outbox
from app.services.reads import get_event, lock_event, settings_of
from app.services.summary import summarize


@dataclass(frozen=True)
class ClockView:
    clock: Clock
    now: datetime

    @property
    def remaining_s(self) -> float:
        return core.remaining(self.clock, self.now)

    def table_ends_at(self) -> dict[str, datetime]:
        end = self.clock.ends_at
        if end is None:
            return {}
        return {m: end + timedelta(seconds=s) for m, s in self.clock.tables.items()}


def _clock(row: RoundClock | None) -> Clock:
    if row is None:
        return Clock()
    return Clock(
        state=ClockState(row.state),
        round=row.round,
        duration_s=row.duration_s,
        ends_at=row.ends_at,
        remaining_s=row.remaining_s,
        tables={str(k): int(v) for k, v in (row.tables or {}).items()},
    )


def _data(clock: Clock, now: datetime) -> dict[str, Any]:
    """What a stream event says of the clock: enough for a page to count down from the server's time."""
    return {
        "state": str(clock.state),
        "round": clock.round,
        "ends_at": clock.ends_at.isoformat() if clock.ends_at else None,
        "remaining_s": round(core.remaining(clock, now), 3),
        "server_time": now.isoformat(),
        "tables": {m: s for m, s in clock.tables.items()},
    }


async def read_clock(session: AsyncSession, event_id: str) -> ClockView:
    await get_event(session, event_id)
    now = utcnow()
    row = await session.get(RoundClock, event_id)
    return ClockView(core.at(_clock(row), now), now)


_EVENTS = {
    ClockAction.START: LiveEventType.CLOCK_STARTED,
    ClockAction.PAUSE: LiveEventType.CLOCK_PAUSED,
    ClockAction.RESUME: LiveEventType.CLOCK_RESUMED,
    ClockAction.EXTEND: LiveEventType.CLOCK_EXTENDED,
    ClockAction.STOP: LiveEventType.CLOCK_STOPPED,
}


async def act_on_clock(
    session: AsyncSession,
    event_id: str,
    action: ClockAction,
    who: Principal,
    *,
    seconds: int | None = None,
    match_id: str | None = None,
) -> ClockView:
    """Apply the organizer's (or a judge's) action to the event's clock, announced on the stream."""
    event = await lock_event(session, event_id)
    now = utcnow()
    row = await session.get(RoundClock, event_id, with_for_update=True)
    if match_id is not None:
        found = await session.scalar(select(Match.id).where(Match.id == match_id, Match.event_id == event_id))
        if found is None:
            raise InvalidInput(
                "no such match", [Problem(("body", "match_id"), f"match {match_id} is not in this event")]
            )
    minutes = settings_of(event).game_minutes
    current = (await summarize(session, event)).current_round
    clock = core.apply(
        _clock(row),
        action,
        now,
        seconds=seconds,
        match_id=match_id,
        default_s=minutes * 60 if minutes else None,
        round=current,
    )
    if row is None:
        row = RoundClock(event_id=event_id, tables={})
        session.add(row)
    row.state, row.round, row.duration_s = str(clock.state), clock.round, clock.duration_s
    row.ends_at, row.remaining_s, row.tables, row.updated_at = (
        clock.ends_at,
        clock.remaining_s,
        clock.tables,
        now,
    )
    data = {**_data(clock, now), "by": who.actor}
    if match_id is not None:
        data["match_id"] = match_id
    await outbox.emit(session, event_id, _EVENTS[action], data)
    return ClockView(clock, now)


async def expire_due(session: AsyncSession) -> list[str]:
    """End every clock whose time is up, announcing ``clock.ended`` once each (the update is
    conditional: a clock another process ended, or one extended meanwhile, is left alone)."""
    now = utcnow()
    due = (
        await session.execute(
            select(RoundClock.event_id, RoundClock.ends_at).where(
                RoundClock.state == str(ClockState.RUNNING), RoundClock.ends_at <= now
            )
        )
    ).all()
    ended = []
    for event_id, ends_at in due:
        done = await session.execute(
            update(RoundClock)
            .where(
                RoundClock.event_id == event_id,
                RoundClock.state == str(ClockState.RUNNING),
                RoundClock.ends_at == ends_at,
            )
            .values(state=str(ClockState.ENDED), remaining_s=0.0, updated_at=now)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            continue
        row = await session.get(RoundClock, event_id, populate_existing=True)
        assert row is not None
        await outbox.emit(
            session, event_id, LiveEventType.CLOCK_ENDED, {**_data(_clock(row), now), "by": "clock"}
        )
        ended.append(event_id)
    return ended


async def next_due(session: AsyncSession) -> datetime | None:
    """When the first running clock's time is up (None: none runs)."""
    return await session.scalar(
        select(RoundClock.ends_at)
        .where(RoundClock.state == str(ClockState.RUNNING))
        .order_by(RoundClock.ends_at)
        .limit(1)
    )


async def announce(session: AsyncSession, event_id: str, text: str, who: Principal) -> Announcement:
    """Post a message to the event's projector and open pages (and its webhooks)."""
    await lock_event(session, event_id)
    row = Announcement(event_id=event_id, text=text, actor=who.actor)
    session.add(row)
    await session.flush()
    await outbox.emit(
        session,
        event_id,
        LiveEventType.ANNOUNCEMENT_POSTED,
        {"id": row.id, "text": text, "at": row.created_at.isoformat(), "by": who.actor},
    )
    return row


async def announcements(session: AsyncSession, event_id: str) -> list[Announcement]:
    """The event's announcements, newest first."""
    await get_event(session, event_id)
    rows = await session.execute(
        select(Announcement)
        .where(Announcement.event_id == event_id)
        .order_by(Announcement.created_at.desc(), Announcement.id.desc())
    )
    return list(rows.scalars())
