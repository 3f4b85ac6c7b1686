"""The round clock (api.md "The round clock"): the organizer starts a round's timer, pauses,
resumes, extends and stops it; a single table may get extra time. Pure: the time is passed in.

A clock is ``idle`` (never started), ``running`` until ``ends_at``, ``paused`` with ``remaining_s``
left, or ``ended`` (its time was up, or the organizer stopped it). A running clock whose ``ends_at``
has passed reads as ended, whoever asks and whenever, so a page that reconnects, a client in
another time zone or a process that missed the moment all agree; the service announces the moment
once (``clock.ended``).

Rulings where the issue is silent:
- ``start`` takes ``seconds``, else the event's ``game_minutes`` (BATTLEBOOKS' 15 minutes), else it
  is a 422 naming ``seconds``; starting again (a new round, or the same one over) is allowed from
  ``idle`` and ``ended`` only: a running or paused clock is stopped first (409 naming its state).
- ``extend`` adds ``seconds`` to the clock (running or paused), or to one table with ``match_id``
  (that table's time is the clock's plus its extra: it plays on after time is up, until the clock
  starts again); ``stop`` ends the round for every table, extra time included.
- A clock lasts at most 24 hours; an extension is 1 s to 24 hours.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from app.core.errors import Conflict, InvalidInput, Problem

MAX_SECONDS = 24 * 3600


class ClockState(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    ENDED = "ended"


class ClockAction(StrEnum):
    START = "start"
    PAUSE = "pause"
    RESUME = "resume"
    EXTEND = "extend"
    STOP = "stop"


@dataclass(frozen=True)
class Clock:
    state: ClockState = ClockState.IDLE
    round: int | None = None
    duration_s: int = 0
    ends_at: datetime | None = None
    remaining_s: float | None = None
    tables: dict[str, int] = field(default_factory=dict)  # match id → extra seconds


def at(clock: Clock, now: datetime) -> Clock:
    """The clock as it reads at ``now``: running past its end reads as ended, nothing left."""
    if clock.state is ClockState.RUNNING and clock.ends_at is not None and clock.ends_at <= now:
        return replace(clock, state=ClockState.ENDED, remaining_s=0.0)
    return clock


def remaining(clock: Clock, now: datetime, match_id: str | None = None) -> float:
    """Seconds left at ``now`` (for one table, with its extra time)."""
    extra = clock.tables.get(match_id, 0) if match_id else 0
    if clock.state is ClockState.RUNNING and clock.ends_at is not None:
        return max(0.0, (clock.ends_at - now).total_seconds() + extra)
    if clock.state is ClockState.PAUSED:
        return (clock.remaining_s or 0.0) + extra
    if clock.state is ClockState.ENDED and extra and clock.ends_at is not None:
        return max(0.0, (clock.ends_at - now).total_seconds() + extra)
    return 0.0


def _seconds(seconds: int | None, default: int | None, *, required: str) -> int:
    value = seconds if seconds is not None else default
    if value is None:
        raise InvalidInput(required, [Problem(("body", "seconds"), required)])
    if not 1 <= value <= MAX_SECONDS:
        raise InvalidInput(
            "seconds out of range", [Problem(("body", "seconds"), f"must be 1 to {MAX_SECONDS} seconds")]
        )
    return value


def apply(
    clock: Clock,
    action: ClockAction,
    now: datetime,
    *,
    seconds: int | None = None,
    match_id: str | None = None,
    default_s: int | None = None,
    round: int | None = None,
) -> Clock:
    """The clock after ``action`` at ``now`` (``clock`` as stored: it is read at ``now`` first)."""
    clock = at(clock, now)
    state = clock.state
    if action is ClockAction.START:
        if state in (ClockState.RUNNING, ClockState.PAUSED):
            raise Conflict(f"the clock is {state}: stop it before starting it again")
        s = _seconds(seconds, default_s, required="seconds is required: the event sets no game_minutes")
        return Clock(ClockState.RUNNING, round, s, now + timedelta(seconds=s), None, {})
    if action is ClockAction.PAUSE:
        if state is not ClockState.RUNNING:
            raise Conflict(f"the clock is {state}: only a running clock pauses")
        return replace(clock, state=ClockState.PAUSED, remaining_s=remaining(clock, now), ends_at=None)
    if action is ClockAction.RESUME:
        if state is not ClockState.PAUSED:
            raise Conflict(f"the clock is {state}: only a paused clock resumes")
        left = clock.remaining_s or 0.0
        return replace(
            clock, state=ClockState.RUNNING, ends_at=now + timedelta(seconds=left), remaining_s=None
        )
    if action is ClockAction.EXTEND:
        s = _seconds(seconds, None, required="seconds is required to extend the clock")
        if match_id is not None:
            if state is ClockState.IDLE:
                raise Conflict("the clock is idle: start it before giving a table extra time")
            tables = {**clock.tables, match_id: clock.tables.get(match_id, 0) + s}
            return replace(clock, tables=tables)
        if state is ClockState.RUNNING and clock.ends_at is not None:
            return replace(
                clock, ends_at=clock.ends_at + timedelta(seconds=s), duration_s=clock.duration_s + s
            )
        if state is ClockState.PAUSED:
            return replace(clock, remaining_s=(clock.remaining_s or 0.0) + s, duration_s=clock.duration_s + s)
        raise Conflict(f"the clock is {state}: only a running or paused clock is extended")
    if state not in (ClockState.RUNNING, ClockState.PAUSED):
        raise Conflict(f"the clock is {state}: only a running or paused clock stops")
    return replace(clock, state=ClockState.ENDED, remaining_s=0.0, ends_at=now, tables={})
