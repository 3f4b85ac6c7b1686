"""A league's season (api.md "Seasons"; the table's rules are ``app/core/seasons.py``): created by
the admin or any event's organizer with a points table, events attached by its own organizer (or
by the admin as an event is created in it, ``events.create_event``), listed newest first, and its
table read across them. Only finished events count: their final places are the event's places
(``event_places``); an attached event still running is listed, not counted.

Every change of a season is announced as ``season.updated`` (api.md "Live updates"): an attach or a
detach here; an attached event's finish, final standings or deletion by the outbox, which reads the
event's seasons (``outbox._seasons_follow``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import seasons as core
from app.core.access import Principal
from app.core.errors import InvalidInput, NotFound, Problem
from app.core.vocabulary import EventStatus, SeasonChange
from app.db.models import Entry, Event, Season, SeasonEvent
from app.services import outbox
from app.services.paging import newest_first
from app.services.reads import get_event, stage_standings, stages_of
from app.services.tokens import hash_token, new_token


@dataclass(frozen=True)
class SeasonView:
    season: Season
    events: list[Event]


@dataclass(frozen=True)
class SeasonSummary:
    """A season as the seasons' list shows it: with how many events it counts or lists."""

    season: Season
    events: int


@dataclass(frozen=True)
class SeasonTable:
    view: SeasonView
    rows: list[core.SeasonRow]
    counted: list[str]  # the finished events counted


def _check(points: list[float]) -> None:
    problems = []
    if not points:
        problems.append(Problem(("body", "points"), "at least one place must earn points"))
    if any(b > a for a, b in zip(points, points[1:], strict=False)):
        problems.append(Problem(("body", "points"), "a place never earns more than the place before it"))
    if problems:
        raise InvalidInput("the points table is not valid", problems)


async def create(
    session: AsyncSession, name: str, points: list[float], best_of: int | None, who: Principal
) -> tuple[Season, str]:
    _check(points)
    token = new_token()
    season = Season(
        name=name, points=list(points), best_of=best_of, token_hash=hash_token(token), created_by=who.actor
    )
    session.add(season)
    await session.flush()
    return season, token


async def get_season(session: AsyncSession, season_id: str) -> Season:
    season = await session.get(Season, season_id)
    if season is None:
        raise NotFound(f"season {season_id} not found")
    return season


async def listing(
    session: AsyncSession, limit: int, cursor: str | None
) -> tuple[list[SeasonSummary], str | None]:
    """The seasons, newest first, after the season ``cursor`` names (api.md "Paging"), each with
    its count of attached events."""
    page, nxt = await newest_first(session, Season, select(Season), limit, cursor)
    counts = {
        season_id: int(n)
        for season_id, n in await session.execute(
            select(SeasonEvent.season_id, func.count())
            .where(SeasonEvent.season_id.in_([s.id for s in page]))
            .group_by(SeasonEvent.season_id)
        )
    }
    return [SeasonSummary(s, counts.get(s.id, 0)) for s in page], nxt


async def named_for_new_event(session: AsyncSession, season_id: str) -> None:
    """The season a new event is created in (``POST /v1/events {season_id}``) exists: else a 422
    naming ``season_id``, before anything is written."""
    if await session.get(Season, season_id) is None:
        raise InvalidInput(
            f"season {season_id} not found",
            [Problem(("body", "season_id"), f"no season {season_id}: create it first (POST /v1/seasons)")],
        )


async def view(session: AsyncSession, season_id: str) -> SeasonView:
    season = await get_season(session, season_id)
    events = (
        await session.execute(
            select(Event)
            .join(SeasonEvent, SeasonEvent.event_id == Event.id)
            .where(SeasonEvent.season_id == season_id)
            .order_by(SeasonEvent.added_at, Event.id)
        )
    ).scalars()
    return SeasonView(season, list(events))


async def attach(session: AsyncSession, season_id: str, event_id: str) -> SeasonView:
    """Count an event in the season (attaching it twice changes nothing, and is not announced)."""
    await get_season(session, season_id)
    await get_event(session, event_id)
    if await session.get(SeasonEvent, (season_id, event_id)) is None:
        session.add(SeasonEvent(season_id=season_id, event_id=event_id))
        await session.flush()
        await outbox.season_updated(session, season_id, SeasonChange.ATTACHED, event_id)
    return await view(session, season_id)


async def detach(session: AsyncSession, season_id: str, event_id: str) -> SeasonView:
    await get_season(session, season_id)
    gone = await session.execute(
        delete(SeasonEvent).where(SeasonEvent.season_id == season_id, SeasonEvent.event_id == event_id)
    )
    if gone.rowcount == 0:  # type: ignore[attr-defined]
        raise NotFound(f"event {event_id} is not in season {season_id}")
    await outbox.season_updated(session, season_id, SeasonChange.DETACHED, event_id)
    return await view(session, season_id)


async def event_places(session: AsyncSession, event: Event) -> list[core.Placing]:
    """An event's final places, by player: the last stage's standings first, then the entries that
    stage did not take, by their standings in the stage before, and so on (shared ranks stay shared)."""
    entries = {
        e.id: e for e in (await session.execute(select(Entry).where(Entry.event_id == event.id))).scalars()
    }
    placed: set[str] = set()
    out: list[core.Placing] = []
    for stage in reversed(await stages_of(session, event.id)):
        rows = [r for r in await stage_standings(session, event, stage) if r.entry_id not in placed]
        for r in rows:
            above = sum(1 for o in rows if o.rank < r.rank)
            shared = sum(1 for o in rows if o.rank == r.rank)
            entry = entries[r.entry_id]
            out.append(core.Placing(entry.player_id, entry.name, len(placed) + above + 1, shared))
        placed |= {r.entry_id for r in rows}
    return out


async def table(session: AsyncSession, season_id: str) -> SeasonTable:
    seen = await view(session, season_id)
    finished = [e for e in seen.events if e.status == EventStatus.FINISHED]
    places = [core.EventPlaces(e.id, await event_places(session, e)) for e in finished]
    rows = core.standings([float(p) for p in seen.season.points], places, seen.season.best_of)
    return SeasonTable(seen, rows, [e.id for e in finished])
