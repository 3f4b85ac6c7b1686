"""Moving a whole event between databases (``arbiter export EVENT_ID > event.json``, ``arbiter import
event.json``; api.md "Moving an event"): its game, players, entries, stages, rounds, matches, seats,
claims, result and event histories, seed, and the rating pools it feeds with their settings and
starting ratings — from a laptop's SQLite to Postgres, say.

The file is untrusted input: it is read, checked row by row with the API's bounds and checked to
name nothing but itself before anything is written (app/services/transfer_rows.py). On import:

* the event is a new event of this database: every row gets a new id (references, and ids inside
  the event's documents, follow), and the organizer and every entry get a new token, returned once
  by the import; no token or token hash travels in the file;
* an event already here — the file's event itself, or an earlier import of it — is a Conflict;
* each player of the file is found as a registration finds one (its ``external_id``, then its
  name; app/services/players.py), or made;
* ratings are derived data: every pool the event feeds is recomputed from all the games the target
  holds, in the same transaction, so an event moved into an empty database has the same ratings as
  where it came from.

An event's ``standings_mark`` (the key of the standings cache) does not travel: an imported event
gets a fresh one, so no process can serve it standings cached before.
"""

from __future__ import annotations

import copy
import uuid
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as rating_core
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.rng import commitment
from app.db.base import Base
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
from app.services.events import resolve_settings
from app.services.players import Identity, claim_identity, find_identity
from app.services.ratings import recompute_pool
from app.services.reads import get_event
from app.services.tokens import hash_token, new_token
from app.services.transfer_rows import FORMAT, UUID, VERSION, EventFile, load, refuse

IMPORTED = "imported"  # the event history's line of an import; its actor names the source event
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
# pool's history generation (the recompute of the import writes the pool's history afresh), and
# the token hashes (an import mints new tokens).
LOCAL = frozenset({"standings_mark", "history_gen", "token_hash", "organizer_token_hash"})


def _row(obj: Base) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in _table(obj).columns:
        if col.name in LOCAL:
            continue
        value = getattr(obj, col.key)
        out[col.name] = value.isoformat() if isinstance(value, datetime) else value
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


def _remap(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every id of the file (whole, or inside a text such as ``entry:<id>``) replaced
    by the id it gets here; other texts are kept as they are."""
    if isinstance(value, str):
        if value in ids:
            return ids[value]
        return UUID.sub(lambda m: ids.get(m.group(0), m.group(0)), value) if "-" in value else value
    if isinstance(value, dict):
        return {_remap(k, ids): _remap(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_remap(v, ids) for v in value]
    return value


async def _already_here(session: AsyncSession, source_id: str) -> str | None:
    """The event of this database that is the file's event: itself, or an import of it."""
    if await session.get(Event, source_id) is not None:
        return source_id
    return (
        (
            await session.execute(
                select(EventHistory.event_id).where(
                    EventHistory.action == IMPORTED, EventHistory.actor == f"import:{source_id}"
                )
            )
        )
        .scalars()
        .first()
    )


async def _game(session: AsyncSession, f: EventFile) -> None:
    if await session.get(Game, f.game.key) is None:
        await session.execute(insert(_table(Game)), [f.game.model_dump()])


async def _settings(session: AsyncSession, f: EventFile) -> dict[str, Any]:
    """The event's settings checked as the API checks an event's (app/services/events.py), and each
    stage's settings the event's for that stage."""
    event = f.event
    where = ("tables", "events", 0)
    try:
        settings = await resolve_settings(
            session, event.game_key, event.preset, copy.deepcopy(event.settings)
        )
    except InvalidInput as exc:
        first = exc.problems[0] if exc.problems else Problem(("settings",), exc.detail)
        raise refuse((*where, *first.loc), first.msg) from None
    stages = settings["stages"]
    for i, stage in enumerate(f.tables.stages):
        if stage.index >= len(stages) or stage.settings != stages[stage.index]:
            raise refuse(
                ("tables", "stages", i, "settings"), f"are not the event's settings of stage {stage.index}"
            )
        if stage.format != stages[stage.index].get("format"):
            raise refuse(
                ("tables", "stages", i, "format"), f"is not the event's format of stage {stage.index}"
            )
    return settings


async def _players(session: AsyncSession, f: EventFile) -> dict[str, str]:
    """The player here of each player of the file, found as a registration finds one (external id,
    then name; app/services/players.py), else made; two players of the file are never one here."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for p in f.players:
        try:
            identity = await find_identity(session, player_id=None, name=p.name, external_id=p.external_id)
        except Conflict:  # several players of that name here: the file's is none of them
            identity = Identity(None, "new", p.name, p.external_id)
        if identity.player is not None and identity.player.id in taken:
            if identity.by == "external_id":
                raise refuse(("players",), f"external_id {p.external_id!r} belongs to another player here")
            identity = Identity(None, "new", p.name, p.external_id)
        player = await claim_identity(session, identity)
        taken.add(player.id)
        out[p.id] = player.id
    return out


async def import_event(session: AsyncSession, data: bytes) -> dict[str, Any]:
    """Write an exported event into this database as a new event (one transaction, not committed):
    every row gets a new id and every entry and the organizer a new token, returned once."""
    f = load(data)
    source_id = f.event_id
    if (here := await _already_here(session, source_id)) is not None:
        where = "" if here == source_id else f" (imported as {here})"
        raise Conflict(f"event {source_id} is already in this database{where}")
    await _game(session, f)
    settings = await _settings(session, f)
    ids = await _players(session, f)
    for name in ("events", "entries", "stages", "rounds", "matches", "seats", "result_reports"):
        ids.update((row.id, str(uuid.uuid4())) for row in getattr(f.tables, name))
    ids.update((row.id, str(uuid.uuid4())) for row in f.tables.result_history)
    ids.update((row.id, str(uuid.uuid4())) for row in f.tables.event_history)
    event_id = ids[source_id]
    organizer_token = new_token()
    tokens: dict[str, str] = {}
    for model in TABLES:
        name = _table(model).name
        rows = [_remap(r.model_dump(), ids) for r in getattr(f.tables, name)]
        for r in rows:
            if model is Event:
                r.update(
                    settings=_remap(settings, ids),
                    seed_commitment=commitment(r["seed"]),
                    organizer_token_hash=hash_token(organizer_token),
                )
            elif model is Entry:
                tokens[r["id"]] = new_token()
                r["token_hash"] = hash_token(tokens[r["id"]])
        if rows:
            await session.execute(insert(_table(model)), rows)
    session.add(EventHistory(event_id=event_id, action=IMPORTED, actor=f"import:{source_id}", payload={}))
    pools = await _pools(session, f, ids)
    await session.flush()
    for pool in pools:
        await recompute_pool(session, pool)
    return {
        "event_id": event_id,
        "source_event_id": source_id,
        "organizer_token": organizer_token,
        "entries": [
            {"entry_id": ids[e.id], "source_entry_id": e.id, "name": e.name, "entry_token": tokens[ids[e.id]]}
            for e in f.tables.entries
        ],
        "ids": ids,
        "players": len(f.players),
        "matches": len(f.tables.matches),
        "pools": pools,
    }


async def _pools(session: AsyncSession, f: EventFile, ids: dict[str, str]) -> list[str]:
    """The pools the event feeds, made when new (an existing pool keeps its settings), and the
    starting ratings of its players that this database does not have yet."""
    pools: list[str] = []
    for pool in f.rating_pools:
        pools.append(pool.key)
        if await session.get(RatingPool, pool.key) is None:
            values = pool.model_dump()
            values.update(version=0, last_seq=None, last_match_id=None)
            await session.execute(insert(_table(RatingPool)), [values])
    for s in f.start_ratings:
        player = ids[s.player_id]
        if await session.get(Rating, (s.pool_key, player)) is None:
            session.add(
                Rating(
                    pool_key=s.pool_key,
                    player_id=player,
                    rating=s.start_rating,
                    games=0,
                    start_rating=s.start_rating,
                )
            )
    return pools
