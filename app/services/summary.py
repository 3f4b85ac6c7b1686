"""Where an event stands, as its read says it (api.md "Events"): ``current_stage``,
``current_round`` and, once finished, its ``winner`` — one answer across stages, playoffs included.

- The stage an event is at is the active one; once none is, the last stage that was played (a
  playoff skipped for want of a tie holds no games and is passed over). The standings without
  ``?stage=`` use the same rule (``deciding``).
- The winner is decided by that stage as it finishes: its format says who won it (first in its
  standings; the winner of the final in a bracket), then the preset may have its own answer (Titan:
  The Arena's final places). It is stored on the event and decided again when a correction of the
  finished event could change it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.vocabulary import EventStatus, StageStatus
from app.db.models import Entry, Event, Round, Stage
from app.services import outbox
from app.services.reads import stage_matches, stage_standings, stages_of
from app.services.registry import registry_of


@dataclass(frozen=True)
class Summary:
    current_stage: int | None = None
    current_round: int | None = None
    winner: Entry | None = None


def deciding(stages: Sequence[Stage], played: set[str]) -> Stage | None:
    """The stage an event is at: the active one; else the last started stage with rounds; else the
    last started one (None before the start)."""
    started = [s for s in stages if s.status != StageStatus.PENDING]
    active = next((s for s in started if s.status == StageStatus.ACTIVE), None)
    if active is not None:
        return active
    return next((s for s in reversed(started) if s.id in played), started[-1] if started else None)


async def summarize(session: AsyncSession, event: Event) -> Summary:
    """The event's stage and round now, and its winner once finished (one query while it runs)."""
    if event.status == EventStatus.REGISTRATION:
        return Summary()
    rows = (
        await session.execute(
            select(Stage, func.max(Round.number))
            .outerjoin(Round, Round.stage_id == Stage.id)
            .where(Stage.event_id == event.id)
            .group_by(Stage.id)
            .order_by(Stage.index)
        )
    ).all()
    last_round = {stage.id: number for stage, number in rows}
    stage = deciding([r[0] for r in rows], {sid for sid, n in last_round.items() if n is not None})
    winner = None
    if event.status == EventStatus.FINISHED and event.winner_entry_id is not None:
        winner = await session.get(Entry, event.winner_entry_id)
    if stage is None:
        return Summary(winner=winner)
    return Summary(stage.index, last_round.get(stage.id), winner)


async def decide_winner(session: AsyncSession, event: Event) -> Entry | None:
    """Decide and store the finished event's winner (None: first place is shared, or nobody played)."""
    stages = await stages_of(session, event.id)
    played = set((await session.execute(select(Round.stage_id).where(Round.event_id == event.id))).scalars())
    stage = deciding(stages, played)
    found: str | None = None
    if stage is not None:
        rows = await stage_standings(session, event, stage)
        found = registry_of(session).format_of(stage).winner(rows, await stage_matches(session, stage))
    found = await registry_of(session).rules_for(event).winner(session, event, found)
    event.winner_entry_id = found
    return await session.get(Entry, found) if found is not None else None


async def advanced(session: AsyncSession, event: Event) -> None:
    """After a stage closed: the winner once the event is finished, and the outbox's
    ``stage.advanced`` (and ``event.finished``)."""
    winner = await decide_winner(session, event) if event.status == EventStatus.FINISHED else None
    await outbox.stage_advanced(session, event, await stages_of(session, event.id), winner)


async def corrected(session: AsyncSession, event: Event) -> None:
    """After a correction: a finished event's winner is decided again (a ``event.finished`` follows
    when it changed)."""
    if event.status != EventStatus.FINISHED:
        return
    before = event.winner_entry_id
    winner = await decide_winner(session, event)
    if event.winner_entry_id != before:
        await outbox.finished(session, event, winner)
