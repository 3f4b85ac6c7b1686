"""Moving a whole event between databases (``arbiter export EVENT_ID > event.json``, ``arbiter import
event.json``; api.md "Moving an event"): its game, players, entries, stages, rounds, matches, seats,
claims, result and event histories, seed and token hashes, and the rating pools it feeds with their
settings and starting ratings — from a laptop's SQLite to Postgres, say.

Rows keep their ids, so links, tokens and idempotent clients go on working. On import:

* an event whose id is already in the database is a Conflict (nothing is written);
* a player already there (same id) is kept; a player whose ``external_id`` is held by another
  player in the target is that player (the entries follow);
* ratings are derived data: every pool the event feeds is recomputed from all the games the target
  holds, in the same transaction, so an event moved into an empty database has the same ratings as
  where it came from.

The file holds the seed and the token hashes: keep it like a backup. An event's
``standings_mark`` (the key of the standings cache) does not travel: an imported event gets a fresh
one, so no process can serve it standings cached before it was deleted here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as rating_core
from app.core.errors import Conflict, InvalidInput, Problem
from app.db.base import Base, UTCDateTime
from app.db.models import (
    Entry,
    Event,
    EventHistory,
    Game,
    Match,
    Player,
    Rating,
    RatingHistory,
    RatingPool,
    ResultHistory,
    ResultReport,
    Round,
    Seat,
    Stage,
)
from app.services.ratings import recompute_pool
from app.services.reads import get_event

FORMAT = "arbiter-event"
VERSION = 1
# Tables in the order they are written (each after those it refers to).
TABLES: tuple[type[Base], ...] = (
    Event,
    Entry,
    Stage,
    Round,
    Match,
    Seat,
    ResultReport,
    ResultHistory,
    EventHistory,
)


def _table(model: Any) -> Table:
    return cast(Table, model.__table__)


# Columns that stay where they are: the standings cache's key (app/services/standings.py), a rating
# pool's history generation (the recompute of the import writes the pool's history afresh).
LOCAL = frozenset({"standings_mark", "history_gen"})


def _row(obj: Base) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in _table(obj).columns:
        if col.name in LOCAL:
            continue
        value = getattr(obj, col.key)
        out[col.name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def _values(model: type[Base], raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in _table(model).columns:
        if col.name not in raw or col.name in LOCAL:
            continue
        value = raw[col.name]
        if isinstance(col.type, UTCDateTime) and isinstance(value, str):
            value = datetime.fromisoformat(value)
        out[col.name] = value
    return out


async def _all(session: AsyncSession, model: type[Base], clause: Any) -> list[Any]:
    return list((await session.execute(select(model).where(clause))).scalars())


async def export_event(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """The whole event as one JSON-ready document."""
    event = await get_event(session, event_id)
    entries = await _all(session, Entry, Entry.event_id == event.id)
    matches = await _all(session, Match, Match.event_id == event.id)
    match_ids = [m.id for m in matches]
    players = await _all(session, Player, Player.id.in_([e.player_id for e in entries]))
    pools = set()
    plan = rating_core.pool_plan(event.game_key, event.preset, event.settings)
    if plan is not None and plan.overall is not None:
        pools.add(plan.overall)
    if match_ids:
        pools.update(
            (
                await session.execute(
                    select(RatingHistory.pool_key).where(RatingHistory.match_id.in_(match_ids)).distinct()
                )
            ).scalars()
        )
    pool_rows = await _all(session, RatingPool, RatingPool.key.in_(sorted(pools)))
    starts = [
        {"pool_key": r.pool_key, "player_id": r.player_id, "start_rating": r.start_rating}
        for r in await _all(
            session,
            Rating,
            Rating.pool_key.in_(sorted(pools))
            & Rating.player_id.in_([p.id for p in players])
            & Rating.start_rating.is_not(None),
        )
    ]
    tables: dict[str, list[dict[str, Any]]] = {}
    for model in TABLES:
        table = _table(model)
        if model is Event:
            rows: list[Any] = [event]
        elif model is Seat:
            rows = await _all(session, Seat, Seat.match_id.in_(match_ids))
        elif model in (ResultReport, ResultHistory):
            rows = await _all(session, model, model.match_id.in_(match_ids))  # type: ignore[attr-defined]
        else:
            rows = await _all(session, model, table.c.event_id == event.id)
        tables[table.name] = [_row(r) for r in rows]
    game = await session.get(Game, event.game_key)
    assert game is not None
    return {
        "format": FORMAT,
        "version": VERSION,
        "event_id": event.id,
        "game": _row(game),
        "players": [_row(p) for p in players],
        "tables": tables,
        "rating_pools": [_row(p) for p in pool_rows],
        "start_ratings": starts,
    }


def _check(doc: Any) -> None:
    problems: list[Problem] = []
    if not isinstance(doc, dict):
        raise InvalidInput("not an event file", [Problem(("file",), "must be a JSON object")])
    if doc.get("format") != FORMAT:
        problems.append(Problem(("format",), f"must be {FORMAT!r}"))
    if doc.get("version") != VERSION:
        problems.append(Problem(("version",), f"version {doc.get('version')!r} is not {VERSION}"))
    tables = doc.get("tables")
    if (
        not isinstance(tables, dict)
        or not isinstance(tables.get("events"), list)
        or len(tables["events"]) != 1
    ):
        problems.append(Problem(("tables", "events"), "must hold the one event"))
    for key in ("players", "rating_pools", "start_ratings"):
        if not isinstance(doc.get(key), list):
            problems.append(Problem((key,), "must be a list"))
    if not isinstance(doc.get("game"), dict):
        problems.append(Problem(("game",), "must be an object"))
    if problems:
        raise InvalidInput("not an event file of this version", problems)


async def import_event(session: AsyncSession, doc: Any) -> dict[str, Any]:
    """Write an exported event into this database (one transaction, not committed)."""
    _check(doc)
    tables: dict[str, list[dict[str, Any]]] = doc["tables"]
    event_id = tables["events"][0]["id"]
    if await session.get(Event, event_id) is not None:
        raise Conflict(f"event {event_id} is already in this database")
    game = doc["game"]
    if await session.get(Game, game["key"]) is None:
        await session.execute(insert(_table(Game)), [_values(Game, game)])
    remap: dict[str, str] = {}
    for p in doc["players"]:
        if await session.get(Player, p["id"]) is not None:
            continue
        if p.get("external_id"):
            held = (
                await session.execute(select(Player.id).where(Player.external_id == p["external_id"]))
            ).scalar_one_or_none()
            if held is not None:
                remap[p["id"]] = held
                continue
        await session.execute(insert(_table(Player)), [_values(Player, p)])
    for model in TABLES:
        rows = [_values(model, r) for r in tables.get(_table(model).name, [])]
        if model is Entry:
            for r in rows:
                r["player_id"] = remap.get(r["player_id"], r["player_id"])
        if rows:
            await session.execute(insert(_table(model)), rows)
    pools: list[str] = []
    for pool in doc["rating_pools"]:
        pools.append(pool["key"])
        if await session.get(RatingPool, pool["key"]) is None:
            values = _values(RatingPool, pool)
            values.update(version=0, last_seq=None, last_match_id=None)
            await session.execute(insert(_table(RatingPool)), [values])
    for s in doc["start_ratings"]:
        player = remap.get(s["player_id"], s["player_id"])
        if await session.get(Rating, (s["pool_key"], player)) is None:
            session.add(
                Rating(
                    pool_key=s["pool_key"],
                    player_id=player,
                    rating=s["start_rating"],
                    games=0,
                    start_rating=s["start_rating"],
                )
            )
    await session.flush()
    for pool in pools:
        await recompute_pool(session, pool)
    return {
        "event_id": event_id,
        "players": len(doc["players"]),
        "matches": len(tables.get("matches", [])),
        "pools": pools,
    }
