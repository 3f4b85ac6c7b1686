"""Rating pools: which events and stages feed a pool, which pools a match rates into, the pool row
and its high-water mark (api.md "Event settings" ``rated`` / ``rating``; the plan of an event's
pools is core ``pool_plan``).

An event rates when its settings have ``rated: true``; per-character pools take the matches where a
seat played that character. Matches of a stage whose settings say ``rated: false`` do not rate (the
BGA best-of-3 final).

Ruling where the spec is silent: a pool is created the first time an event rates into it, its
settings seeded from the event's ``rating.k/start/period``; afterwards only the admin's pool
settings count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.core.errors import NotFound
from app.db.base import utcnow
from app.db.models import Entry, Event, Match, RatingHistory, RatingPool, Seat, Stage


@dataclass(frozen=True)
class Sources:
    """The events feeding a pool: overall events, and character events with the character."""

    overall: list[str]
    by_character: list[str]
    character: str | None
    unrated_stages: tuple[str, ...] = ()  # stages with ``rated: false`` (e.g. a BGA best-of-3 final)

    @property
    def event_ids(self) -> list[str]:
        return self.overall + self.by_character


async def rated_events(session: AsyncSession) -> list[tuple[str, core.PoolPlan]]:
    rows = await session.execute(select(Event.id, Event.game_key, Event.preset, Event.settings))
    out = []
    for eid, game, preset, settings in rows:
        plan = core.pool_plan(game, preset, settings)
        if plan is not None:
            out.append((eid, plan))
    return out


async def pool_sources(session: AsyncSession, pool: str) -> Sources:
    overall: list[str] = []
    by_char: list[str] = []
    character: str | None = None
    for eid, plan in await rated_events(session):
        if plan.overall == pool:
            overall.append(eid)
        elif plan.character_base is not None and pool.startswith(plan.character_base + ":"):
            by_char.append(eid)
            character = pool[len(plan.character_base) + 1 :]
    unrated: tuple[str, ...] = ()
    if overall or by_char:
        rows = await session.execute(
            select(Stage.id, Stage.settings).where(Stage.event_id.in_(overall + by_char))
        )
        unrated = tuple(sorted(sid for sid, st in rows if (st or {}).get("rated") is False))
    return Sources(overall, by_char, character, unrated)


async def get_pool(session: AsyncSession, pool: str) -> RatingPool:
    row = await session.get(RatingPool, pool)
    if row is None:
        raise NotFound(f"rating pool {pool!r} not found")
    return row


async def ensure_pool(
    session: AsyncSession, key: str, game_key: str, character: str | None, seed: dict[str, Any]
) -> None:
    """Create the pool row unless it exists (a concurrent creation is not an error)."""
    if await session.get(RatingPool, key) is not None:
        return
    values = {
        "key": key,
        "game_key": game_key,
        "character": character,
        "settings": seed,
        "version": 0,
        "created_at": utcnow(),
    }
    dialect = session.bind.dialect.name if session.bind is not None else "postgresql"
    if dialect == "postgresql":
        await session.execute(pg_insert(RatingPool).values(**values).on_conflict_do_nothing())
    else:
        await session.execute(sqlite_insert(RatingPool).values(**values).on_conflict_do_nothing())


class Mark(NamedTuple):
    """A pool's high-water mark: its last history row's seq and that row's match (None once gone)."""

    seq: int
    match: Match | None


async def watermark(session: AsyncSession, pool: str) -> Mark | None:
    """The pool's high-water mark (kept on the pool row by both jobs), or None when the pool has no
    history."""
    row = (
        await session.execute(
            select(RatingPool.last_seq, RatingPool.last_match_id).where(RatingPool.key == pool)
        )
    ).one_or_none()
    if row is None or row.last_seq is None:
        return None
    match = await session.get(Match, row.last_match_id) if row.last_match_id is not None else None
    return Mark(row.last_seq, match)


def current_history() -> Any:
    """Joins a pool to its history rows: their key begins with the pool's generation (migration
    0011), so a read by player finds them through the key once the generation is known. Only the
    current generation's rows exist (a recompute deletes those it replaces), so this joins nothing
    away; it lets the key be used."""
    return (RatingPool.key == RatingHistory.pool_key) & (RatingPool.history_gen == RatingHistory.gen)


def history_pools_stmt(match_id: str) -> Any:
    """The pools holding a match's history, found through its players' rows (indexed by player)."""
    players = select(Entry.player_id).join(Seat, Seat.entry_id == Entry.id).where(Seat.match_id == match_id)
    return (
        select(RatingHistory.pool_key)
        .join(RatingPool, current_history())
        .where(RatingHistory.player_id.in_(players), RatingHistory.match_id == match_id)
        .distinct()
    )


async def match_pools(session: AsyncSession, match_id: str) -> list[str]:
    """The pools a match rates into now, and those already holding its history."""
    await session.flush()
    match = await session.get(Match, match_id)
    keys: list[str] = []
    if match is not None:
        event = await session.get(Event, match.event_id)
        plan = core.pool_plan(event.game_key, event.preset, event.settings) if event else None
        if plan is not None:
            chars = (await session.execute(select(Seat.character).where(Seat.match_id == match_id))).scalars()
            keys = plan.keys_for(list(chars))
    had = (await session.execute(history_pools_stmt(match_id))).scalars()
    for k in had:
        if k not in keys:
            keys.append(k)
    return keys


async def lock_pool(session: AsyncSession, pool: str) -> RatingPool | None:
    """Lock the pool's row as both jobs do (``UPDATE … version + 1``, then ``SELECT … FOR UPDATE``:
    jobs on one pool serialize); None when there is no such pool."""
    res = await session.execute(
        update(RatingPool).where(RatingPool.key == pool).values(version=RatingPool.version + 1)
    )
    if res.rowcount == 0:  # type: ignore[attr-defined]
        return None
    return (
        await session.execute(
            select(RatingPool)
            .where(RatingPool.key == pool)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
    ).scalar_one()
