"""Which standings a client means, and computing them (api.md ``GET /v1/events/{id}/standings``).

Ruling: without ``stage``, the standings are the active stage's; once the event is over, the last
stage that was played (a playoff skipped for want of a tie holds no games and is passed over): the
stage ``current_stage`` names (app/services/summary.py). They are ``final`` once their stage has
closed or the event has ended (finished or cancelled); provisional before.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import NotFound
from app.core.lifecycle import standings_final
from app.core.standings import StandingRow
from app.db.models import Round, Stage
from app.services.reads import (
    details_of,
    get_event,
    stage_config,
    stage_standings,
    stages_of,
    tiebreak_source,
)
from app.services.summary import deciding


@dataclass(frozen=True)
class StandingsView:
    stage: Stage | None
    group: str | None
    rows: list[StandingRow]
    groups: dict[str, str]  # entry → group, when the stage is split
    tiebreaks: tuple[str, ...] = ()  # the chain applied
    tiebreaks_from: str = "settings"  # or default:<format>
    final: bool = False  # the stage closed (or the event ended): no more play changes them


async def chosen_stage(session: AsyncSession, event_id: str, index: int | None) -> Stage | None:
    stages = await stages_of(session, event_id)
    if index is not None:
        chosen = next((s for s in stages if s.index == index), None)
        if chosen is None:
            raise NotFound(f"stage {index} of event {event_id} not found (it may not have started)")
        return chosen
    if not stages:
        return None
    played = set((await session.execute(select(Round.stage_id).where(Round.event_id == event_id))).scalars())
    return deciding(stages, played)


async def event_standings(
    session: AsyncSession, event_id: str, stage_index: int | None = None, group: str | None = None
) -> StandingsView:
    event = await get_event(session, event_id)
    stage = await chosen_stage(session, event_id, stage_index)
    rows = await stage_standings(session, event, stage, group)
    groups = dict(details_of(stage).groups) if stage is not None else {}
    chain = stage_config(event, stage).tiebreaks
    final = stage is not None and standings_final(stage.status, event.status)
    return StandingsView(stage, group, rows, groups, chain, tiebreak_source(event, stage), final)
