"""Which standings a client means, and computing them (api.md ``GET /v1/events/{id}/standings``).

Ruling: without ``stage``, the standings are the active stage's; once the event is over, the last
stage that was played (a playoff skipped for want of a tie holds no games and is passed over): the
stage ``current_stage`` names (app/services/summary.py). They are ``final`` once their stage has
closed or the event has ended (finished or cancelled); provisional before.

The standings cache (docs/architecture.md "The standings cache"): ``GET …/standings`` is served by
``cached_standings``, which keeps the last ``CACHED`` answers of this process keyed by (event, its
``standings_mark``, stage, group). The mark is read first, by primary key, in the request's own
transaction; every change of the event replaces it in the change's transaction (``lock_event``).
So an answer is only ever served to a request that read the mark it was computed under, and what
it was computed from is at least as new as that mark: never older than the request.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import NotFound
from app.core.lifecycle import standings_final
from app.core.standings import StandingRow
from app.db.models import Event, Round, Stage
from app.services.reads import (
    details_of,
    get_event,
    stage_config,
    stage_standings,
    stages_of,
    tiebreak_source,
)
from app.services.summary import deciding

CACHED = 32  # answers kept per process (the least recently served go first) ...
CACHED_ROWS = 40_000  # ... and rows in all of them (about 1 KB each, with its rendering)


@dataclass(frozen=True, eq=False)
class StandingsView:
    """The answer, holding no database rows (it outlives its session in the cache); compared and
    hashed by identity (the API keeps each one's rendering beside it)."""

    stage: int | None  # the stage's index
    group: str | None
    rows: tuple[StandingRow, ...]
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
    chain = stage_config(session, event, stage).tiebreaks
    final = stage is not None and standings_final(stage.status, event.status)
    index = stage.index if stage is not None else None
    return StandingsView(index, group, tuple(rows), groups, chain, tiebreak_source(event, stage), final)


_Key = tuple[str, int, int | None, str | None]
_cache: OrderedDict[_Key, StandingsView] = OrderedDict()
_rows = 0  # rows in the answers of _cache
# answers being computed: requests that miss the cache at once wait for the one computation (a
# round's last result makes every projector, phone and league site ask at the same moment)
_flights: dict[_Key, asyncio.Future[StandingsView]] = {}


async def standings_mark(session: AsyncSession, event_id: str) -> int:
    """The event's ``standings_mark`` (one primary-key read); NotFound without the event."""
    mark = (
        await session.execute(select(Event.standings_mark).where(Event.id == event_id))
    ).scalar_one_or_none()
    if mark is None:
        raise NotFound(f"event {event_id} not found")
    return int(mark)


async def cached_standings(
    session: AsyncSession, event_id: str, stage_index: int | None = None, group: str | None = None
) -> StandingsView:
    """``event_standings``, from this process's cache when the event has not changed since it was
    computed. Only for a transaction that reads: in one that has changed the event, the mark read
    would name changes not yet committed."""
    global _rows
    key = (event_id, await standings_mark(session, event_id), stage_index, group)
    view = _cache.get(key)
    if view is not None:
        _cache.move_to_end(key)
        return view
    flight = _flights.get(key)
    if flight is not None:
        try:
            return await asyncio.shield(flight)
        except asyncio.CancelledError:
            if not flight.cancelled():
                raise  # this request was cancelled
            # the request computing it was (its client left): compute it here
    view = await _computed(session, key)
    twin = _cache.pop(key, None)  # computed meanwhile by a request beside this one
    if twin is not None:
        _rows -= len(twin.rows)
    _cache[key] = view
    _rows += len(view.rows)
    while len(_cache) > CACHED or (_rows > CACHED_ROWS and len(_cache) > 1):
        _rows -= len(_cache.popitem(last=False)[1].rows)
    return view


async def _computed(session: AsyncSession, key: _Key) -> StandingsView:
    """``event_standings`` for ``key``, shared with the requests that miss it meanwhile."""
    flight: asyncio.Future[StandingsView] = asyncio.get_running_loop().create_future()
    flight.add_done_callback(lambda f: f.cancelled() or f.exception())  # read even if none waits
    _flights[key] = flight
    try:
        view = await event_standings(session, key[0], key[2], key[3])
    except asyncio.CancelledError:
        flight.cancel()
        raise
    except BaseException as exc:
        flight.set_exception(exc)
        raise
    finally:
        if _flights.get(key) is flight:
            del _flights[key]
    flight.set_result(view)
    return view


def forget_cached() -> None:
    """Empty this process's standings cache."""
    global _rows
    _cache.clear()
    _rows = 0
