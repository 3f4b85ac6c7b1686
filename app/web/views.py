"""What a page shows, gathered from the services the API reads through (no rule of its own)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Principal
from app.core.errors import DomainError
from app.core.vocabulary import EventStatus, LiveEventType, MatchStatus, StageFormatName
from app.db.models import Match, Stage
from app.services import events as event_svc
from app.services import exports as export_svc
from app.services import rounds as round_svc
from app.services import standings as standings_svc
from app.services.events import EntryView, EventView
from app.services.exports import CrossTableView
from app.services.reads import stages_of
from app.services.rounds import RoundView
from app.services.standings import StandingsView

LIVE_TYPES = ",".join(t.value for t in LiveEventType)
OPEN = (MatchStatus.PENDING, MatchStatus.REPORTED, MatchStatus.DISPUTED)
ELIMINATION = (StageFormatName.SINGLE_ELIMINATION, StageFormatName.DOUBLE_ELIMINATION)


@dataclass
class Table:
    """One match as a page shows it: its seats in order, with names and results."""

    match: Match
    round: int
    stage: Stage
    seats: list[dict[str, Any]]

    @property
    def open(self) -> bool:
        return self.match.status in OPEN


def tables_of(view: RoundView) -> list[Table]:
    out = []
    for m in view.matches:
        seats = [
            {
                "entry_id": s.entry_id,
                "name": view.names.get(s.entry_id, ""),
                "seat": s.seat,
                "character": s.character,
                "first": s.first_token,
                "place": s.place,
                "score": s.score,
            }
            for s in sorted(m.seats, key=lambda s: s.seat)
        ]
        out.append(Table(m, view.round.number, view.stage, seats))
    return out


@dataclass
class EventPage:
    """The public event page, the projector and the printed sheets."""

    view: EventView
    stages: list[Stage]
    rounds: list[RoundView]
    standings: StandingsView | None
    crosstable: CrossTableView | None = None
    current: list[Table] = field(default_factory=list)  # the current round's tables
    past: list[tuple[RoundView, list[Table]]] = field(default_factory=list)

    @property
    def event(self) -> Any:
        return self.view.event

    @property
    def current_round(self) -> RoundView | None:
        return self.rounds[-1] if self.rounds else None

    def stage_rounds(self, stage: Stage) -> list[tuple[RoundView, list[Table]]]:
        return [(r, tables_of(r)) for r in self.rounds if r.stage.id == stage.id]

    @property
    def disputes(self) -> int:
        return sum(1 for t in self.current if t.match.status == MatchStatus.DISPUTED)


async def event_page(session: AsyncSession, event_id: str) -> EventPage:
    view = await event_svc.get_event_view(session, event_id)
    stages = await stages_of(session, event_id)
    rounds = await round_svc.event_rounds(session, event_id)
    standings = None
    if view.event.status != EventStatus.REGISTRATION:
        standings = await standings_svc.event_standings(session, event_id)
    crosstable = None
    stage = standings.stage if standings is not None else None
    if stage is not None and stage.format == StageFormatName.ROUND_ROBIN:
        try:
            crosstable = await export_svc.crosstable_view(session, event_id, stage.index)
        except DomainError:  # a multi-seat design has no two-seat cross-table
            crosstable = None
    page = EventPage(view, stages, rounds, standings, crosstable)
    if rounds:
        page.current = tables_of(rounds[-1])
        page.past = [(r, tables_of(r)) for r in reversed(rounds[:-1])]
    return page


async def entries_of(session: AsyncSession, event_id: str, principal: Principal | None) -> list[EntryView]:
    return await event_svc.list_entries(session, event_id, principal)


def seated(page: EventPage, entry_id: str) -> tuple[list[Table], list[Table]]:
    """An entry's open tables and its played ones (newest first)."""
    mine = [
        t
        for _, tables in [(r, tables_of(r)) for r in reversed(page.rounds)]
        for t in tables
        if any(s["entry_id"] == entry_id for s in t.seats)
    ]
    return [t for t in mine if t.open], [t for t in mine if not t.open]
