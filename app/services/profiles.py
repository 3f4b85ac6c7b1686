"""A player's public profile (docs/web.md "Rating pages"): the events they entered with their place,
and their rating in every pool with each game's opponents and result. The places are the seasons'
rule (``seasons.event_places``: an event's final places, provisional while it runs); the ratings and
their history are the API's read (``ratings.player_ratings``, ``GET /v1/players/{id}/ratings``); a
game's result is the game as it was rated (``core.ratings.seat_outcome`` of its seats' places, as
``GET /v1/matches/{id}`` gives them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as rating_core
from app.core.vocabulary import EventStatus
from app.db.models import Entry, Event, Match, Player, Seat
from app.services import ratings as rating_svc
from app.services import seasons as season_svc
from app.services.players import CHUNK, get_player


@dataclass(frozen=True)
class PlayedEvent:
    event: Event
    status: str  # the entry's own (active, dropped, …)
    place: int | None  # None: not started, or cancelled
    shared: int  # how many share the place
    field: int  # how many were placed


@dataclass(frozen=True)
class Game:
    """One row of a pool's history: the change, when, against whom, and how it went."""

    match_id: str | None
    before: float
    after: float
    at: datetime | None
    opponents: list[str]
    result: rating_core.SeatOutcome | None

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class PoolHistory:
    pool: str
    rating: float
    games: int
    history: list[Game]


@dataclass(frozen=True)
class Profile:
    player: Player
    events: list[PlayedEvent]
    ratings: list[PoolHistory]


async def _events(session: AsyncSession, player_id: str) -> list[PlayedEvent]:
    rows = (
        await session.execute(
            select(Event, Entry.status)
            .join(Entry, Entry.event_id == Event.id)
            .where(Entry.player_id == player_id)
            .order_by(Event.created_at.desc(), Event.id)
        )
    ).all()
    out = []
    for event, status in rows:
        place, shared, placed = None, 1, 0
        if event.status in (EventStatus.RUNNING, EventStatus.FINISHED):
            places = await season_svc.event_places(session, event)
            mine = next((p for p in places if p.player_id == player_id), None)
            placed = len(places)
            if mine is not None:
                place, shared = mine.place, mine.shared
        out.append(PlayedEvent(event, str(status), place, shared, placed))
    return out


@dataclass
class _Table:
    opponents: list[str]
    places: list[int | None]
    violations: list[bool]
    draw: bool
    seat: int | None = None  # the player's, an index of ``places``

    def result(self) -> rating_core.SeatOutcome | None:
        if self.seat is None:
            return None
        places = rating_core.rated_places(self.places, self.violations)
        return rating_core.seat_outcome(places, self.seat, self.draw)


async def _tables(session: AsyncSession, player_id: str, match_ids: list[str]) -> dict[str, _Table]:
    """Each match's other seats' names, in seat order, and its places."""
    out: dict[str, _Table] = {}
    for lo in range(0, len(match_ids), CHUNK):
        rows = await session.execute(
            select(Seat.match_id, Entry.player_id, Entry.name, Seat.place, Seat.violation, Match.outcome)
            .join(Entry, Entry.id == Seat.entry_id)
            .join(Match, Match.id == Seat.match_id)
            .where(Seat.match_id.in_(match_ids[lo : lo + CHUNK]))
            .order_by(Seat.match_id, Seat.seat)
        )
        for mid, pid, name, place, violation, outcome in rows:
            table = out.setdefault(mid, _Table([], [], [], outcome in rating_core.DRAW_OUTCOMES))
            if pid == player_id:
                table.seat = len(table.places)
            else:
                table.opponents.append(name)
            table.places.append(place)
            table.violations.append(bool(violation))
    return out


async def profile(session: AsyncSession, player_id: str) -> Profile:
    """The player (404 when unknown), their events newest first, their ratings by pool."""
    player = await get_player(session, player_id)
    ratings = await rating_svc.player_ratings(session, player_id)
    ids = sorted({h.match_id for r in ratings for h in r.history if h.match_id})
    tables = await _tables(session, player_id, ids)
    none = _Table([], [], [], False)
    pools = []
    for r in ratings:
        games = []
        for h in r.history:
            table = tables.get(h.match_id or "", none)
            games.append(Game(h.match_id, h.before, h.after, h.at, table.opponents, table.result()))
        pools.append(PoolHistory(r.pool, r.rating, r.games, games))
    return Profile(player, await _events(session, player_id), pools)
