"""The rating jobs: queueing them, the incremental update and the full recompute (api.md
"Resources" ``POST /v1/ratings/{pool}/recompute`` and "Conventions", long work runs as a job).

What the lifecycle code calls, in the transaction that confirms (or corrects) a result:
``enqueue_rating_update(session, match_id)``. For a ruling that touches pools wholesale:
``enqueue_recompute(session, pool_keys)`` (``match_pools(session, match_id)`` names a match's pools).

The two jobs, both one transaction holding the pool's row lock (``UPDATE … version + 1`` then
``SELECT … FOR UPDATE``: on Postgres two jobs on one pool serialize, on SQLite the write lock is taken
up front), so running twice, or after being killed midway, leaves exactly a clean recompute's state:

* ``ratings_update`` (incremental, de-duplicated per pool): the high-water mark is the pool's last
  history row (``RatingPool.last_seq`` / ``last_match_id``, kept by both jobs); it rates, in order, the
  pool's confirmed matches that sort after that match and have no history yet, from the stored ratings. It falls back to a full recompute when
  the history is not a clean prefix: the mark's match is gone or no longer confirmed, a candidate is
  already in the history, there is no history yet, or the pool rates by ``period: "event"`` (ruling:
  an event's snapshot lives in the history, and rebuilding it is what the recompute does anyway).
* ``ratings_recompute``: deletes the pool's history and ratings and rates every game again from the
  players' starting ratings (``Rating.start_rating``, else the pool's start). Streams the rows (only
  the columns it uses) through a server-side cursor and writes with binary COPY on Postgres (history
  in key order, under a new generation: migration 0011), executemany on SQLite; the garbage
  collector is paused meanwhile, and on Postgres the job's commit does not wait for its WAL's flush.
  Its phases (read, build, rate, write), its wall time and their overlap are timed and logged
  (docs/operations.md "Scale": why the write does not overlap the rating).

A character pool's jobs (both) recompute its family, every per-character pool of its base together
(``characters``: each seat counts at its rating in the pool of the character it played).

Every change of a pool's ratings is announced in its transaction (``outbox.ratings_updated``, api.md
"Live updates"): an incremental update that rated games (``rated``), a recompute (``recomputed``,
every pool of a family), a starting rating taken at once (``admin``). An update that finds nothing
new announces nothing.

Rulings where the spec is silent:
* ``enqueue_rating_update`` sends a match that is already in a pool's history (a correction or a
  ruling) or that sorts before the pool's high-water mark (confirmed late) to a full recompute of
  that pool instead of an incremental update; it also covers pools the match no longer rates into.
* The incremental job detects an inconsistent history it can see (its mark's match gone, unconfirmed
  or no longer rated; a new match already rated); a corrected result of a match already rated is
  caught where it is reported, by ``enqueue_rating_update``, which queues the recompute.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from typing_extensions import TypedDict

from app.core import ratings as core
from app.core.errors import NotFound
from app.core.vocabulary import RatingChange
from app.db.base import utcnow
from app.db.bulk import bulk_insert
from app.db.models import Event, Job, Match, Rating, RatingHistory, RatingPool, Seat
from app.jobs import JobContext, create_job
from app.observability.logs import event
from app.services import outbox
from app.services.offload import collector_paused
from app.services.ratings import characters
from app.services.ratings.games import GameBuilder, games_stmt, order_key, stream_rows
from app.services.ratings.pools import (
    ensure_pool,
    get_pool,
    history_pools_stmt,
    lock_pool,
    pool_sources,
    watermark,
)
from app.services.ratings.writing import RATING_COLS, write_history

UPDATE_KIND = "ratings_update"
RECOMPUTE_KIND = "ratings_recompute"

log = logging.getLogger("arbiter.ratings")


# --------------------------------------------------------------------------- queueing


async def enqueue_rating_update(session: AsyncSession, match_id: str) -> list[Job]:
    """Queue the rating work a confirmed (or corrected) match needs, in the caller's transaction:
    an incremental update per pool (de-duplicated by pool), or a recompute of a pool whose history
    already holds the match or whose high-water mark the match sorts before."""
    await session.flush()
    match = await session.get(Match, match_id)
    if match is None:
        raise NotFound(f"match {match_id} not found")
    event = await session.get(Event, match.event_id)
    assert event is not None
    plan = core.pool_plan(event.game_key, event.preset, event.settings)
    current: list[str] = []
    if plan is not None and match.status == "confirmed":
        chars = list(
            (await session.execute(select(Seat.character).where(Seat.match_id == match_id))).scalars()
        )
        seed = core.seed_settings(event.settings)
        if plan.overall is not None:
            await ensure_pool(session, plan.overall, event.game_key, None, seed)
            current.append(plan.overall)
        if plan.character_base is not None:
            for c in chars:
                if not c:
                    continue
                key = core.character_pool(plan.character_base, c)
                if key not in current:
                    await ensure_pool(session, key, event.game_key, c, seed)
                    current.append(key)
    had = set((await session.execute(history_pools_stmt(match_id))).scalars())
    jobs: list[Job] = []
    for pool in current + sorted(had - set(current)):
        known = await session.get(RatingPool, pool)
        # a character pool is rated with its family: always a recompute (ratings/characters.py)
        recompute = pool in had or (known is not None and characters.family_base(known) is not None)
        if not recompute:
            # Lock the pool as the jobs do: a running job finishes first and its mark is seen here,
            # or it starts after this transaction commits and sees this match.
            await session.execute(select(RatingPool.key).where(RatingPool.key == pool).with_for_update())
            mark = await watermark(session, pool)
            if mark is not None and (mark.match is None or order_key(match) < order_key(mark.match)):
                recompute = True
        if recompute:
            jobs += await enqueue_recompute(session, [pool])
        else:
            jobs.append(await create_job(session, UPDATE_KIND, {"pool": pool}, dedup_key=f"ratings:{pool}"))
    return jobs


async def enqueue_recompute(session: AsyncSession, pool_keys: Iterable[str]) -> list[Job]:
    """Queue a full recompute of each pool (de-duplicated while one is queued)."""
    jobs = []
    for pool in dict.fromkeys(pool_keys):
        row = await get_pool(session, pool)
        key = characters.recompute_key(row)
        jobs.append(await create_job(session, RECOMPUTE_KIND, {"pool": pool}, dedup_key=key))
    return jobs


# --------------------------------------------------------------------------- the jobs


def _set_mark(row: RatingPool, b: GameBuilder, hist: core.History, before: int) -> None:
    if len(hist):
        row.last_seq = before + len(hist)
        row.last_match_id = b.match_ids[hist.game[-1]]
    elif before < 0:
        row.last_seq = None
        row.last_match_id = None


async def _progress(ctx: JobContext | None, value: float) -> None:
    if ctx is not None:
        await ctx.progress(value)


class PoolResult(TypedDict):
    """The ``ratings_update`` and ``ratings_recompute`` jobs' answer."""

    pool: str
    mode: Literal["recompute", "incremental"]
    games: int
    players: int


@dataclass
class Phases:
    """Where a recompute's time goes, in seconds (``perf_counter``): reading (the pool's lock and
    sources, the query, waiting for and decoding its rows), building the games, the Elo arithmetic,
    writing (deleting and writing ratings and history), and the wall time of the whole. Logged with
    the recompute; the ratings benchmark prints them."""

    read: float = 0.0
    build: float = 0.0
    rate: float = 0.0
    write: float = 0.0
    wall: float = 0.0

    @property
    def overlap(self) -> float:
        """The phases' sum less the wall time: the time phases ran at once (the server sending the
        next chunk of rows while one is built and rated is counted in neither, so this is about 0)."""
        return self.read + self.build + self.rate + self.write - self.wall


async def recompute_pool(
    session: AsyncSession, pool: str, ctx: JobContext | None = None, phases: Phases | None = None
) -> PoolResult:
    """Rate every game of the pool again from the starting ratings; one transaction, not committed.
    ``phases``, when given, receives the time each phase took."""
    # A recompute holds millions of small objects (rows, games, history) at once, none of them in a
    # cycle: the cyclic garbage collector would rescan that growing heap again and again (a third of
    # the run time), so it is paused for the recompute and restored afterwards.
    known = await session.get(RatingPool, pool)
    base = characters.family_base(known) if known is not None else None
    if base is not None:  # a character pool: its family is rated together (ratings/characters.py)
        done = await characters.recompute_family(session, pool, base)
        return {"pool": pool, "mode": "recompute", "games": done["games"], "players": done["players"]}
    with collector_paused():
        return await _recompute(session, pool, ctx, phases if phases is not None else Phases())


async def _recompute(session: AsyncSession, pool: str, ctx: JobContext | None, took: Phases) -> PoolResult:
    clock = time.perf_counter
    t = began = clock()
    row = await lock_pool(session, pool)
    if row is None:
        raise NotFound(f"rating pool {pool!r} not found")
    cfg = core.pool_config(row.settings)
    starts: dict[str, float] = {
        pid: float(r or 0.0)
        for pid, r in await session.execute(
            select(Rating.player_id, Rating.start_rating).where(
                Rating.pool_key == pool, Rating.start_rating.is_not(None)
            )
        )
    }
    sources = await pool_sources(session, pool)
    state = core.PoolState()
    b = GameBuilder(sources, cfg, state, {pid: (r, 0) for pid, r in starts.items()})
    hist = core.History()
    if sources.event_ids:
        total = int(
            (
                await session.execute(
                    select(func.count())
                    .select_from(Match)
                    .where(Match.event_id.in_(sources.event_ids), Match.status == "confirmed")
                )
            ).scalar_one()
        )
        await _progress(ctx, 0.0)
        t1 = clock()
        took.read += t1 - t
        stmt = games_stmt(sources, by_event=cfg.period == "event", ordered_at=False)
        async for chunk in stream_rows(session, stmt):
            t2 = clock()
            games = b.feed(chunk)
            t3 = clock()
            core.rate_stream(games, cfg, state, hist)
            t4 = clock()
            took.read += t2 - t1
            took.build += t3 - t2
            took.rate += t4 - t3
            await _progress(ctx, 0.8 * b.matches_seen / max(total, 1))
            t1 = clock()
        took.read += clock() - t1
        t2 = clock()
        games = b.feed([], final=True)
        t3 = clock()
        core.rate_stream(games, cfg, state, hist)
        took.build += t3 - t2
        took.rate += clock() - t3
    t = clock()
    await _progress(ctx, 0.8)
    # the new rows go under a generation above every pool's: at the end of the history's index,
    # not beside the rows they replace (migration 0011); two pools may share a generation
    gen = 1 + int((await session.execute(select(func.max(RatingPool.history_gen)))).scalar() or 0)
    await session.execute(delete(RatingHistory).where(RatingHistory.pool_key == pool))
    await session.execute(delete(Rating).where(Rating.pool_key == pool))
    now = utcnow()
    rated = set(b.index)
    # players only held at their rating (per-character pools) get no row; started players keep theirs
    rating_rows = [
        (pool, pid, state.ratings[i], state.games[i], starts.get(pid), now)
        for i, pid in enumerate(b.players)
        if state.games[i] > 0 or pid in starts
    ] + [(pool, pid, r, 0, r, now) for pid, r in starts.items() if pid not in rated]
    await bulk_insert(session, Rating, RATING_COLS, rating_rows)
    await _progress(ctx, 0.85)
    await write_history(session, pool, b.players, b.match_ids, hist, 0, gen)
    row.history_gen = gen
    _set_mark(row, b, hist, -1)
    await session.flush()
    await outbox.ratings_updated(session, pool, RatingChange.RECOMPUTED, len(b.match_ids))
    end = clock()
    took.write += end - t
    took.wall += end - began
    event(
        log,
        logging.INFO,
        f"rating recompute of {pool}: {len(b.match_ids)} games, {len(hist)} history rows; read "
        f"{took.read:.2f} s, build {took.build:.2f} s, rate {took.rate:.2f} s, write {took.write:.2f} s; "
        f"wall {took.wall:.2f} s, overlap {took.overlap:.2f} s",
        pool=pool,
        games=len(b.match_ids),
        history_rows=len(hist),
        read_ms=round(took.read * 1000, 1),
        build_ms=round(took.build * 1000, 1),
        rate_ms=round(took.rate * 1000, 1),
        write_ms=round(took.write * 1000, 1),
        wall_ms=round(took.wall * 1000, 1),
        overlap_ms=round(took.overlap * 1000, 1),
    )
    return {"pool": pool, "mode": "recompute", "games": len(b.match_ids), "players": len(b.players)}


async def _fast_commit(session: AsyncSession) -> None:
    """Let this transaction's commit return before its WAL reaches the disk (Postgres). For the
    recompute job's own transaction only, which writes derived data and the job's end: a crash that
    loses its commit leaves the job unfinished, and the job runs again (the sweep gives it back) to
    the same state. (An import recomputes inside its own transaction, which must stay durable.)"""
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        await session.execute(text("SET LOCAL synchronous_commit = off"))


async def update_pool(session: AsyncSession, pool: str, ctx: JobContext | None = None) -> PoolResult:
    """Rate the pool's confirmed games after its high-water mark; recompute when the history is not
    a clean prefix of the games (see the module docstring). One transaction, not committed."""
    known = await session.get(RatingPool, pool)
    if known is not None and characters.family_base(known) is not None:
        return await recompute_pool(session, pool, ctx)  # a character pool's family is rated together
    row = await lock_pool(session, pool)
    if row is None:
        raise NotFound(f"rating pool {pool!r} not found")
    cfg = core.pool_config(row.settings)
    if cfg.period == "event":
        return await recompute_pool(session, pool, ctx)
    mark = await watermark(session, pool)
    if mark is None or mark.match is None or mark.match.status != "confirmed":
        return await recompute_pool(session, pool, ctx)
    last_seq, last_match = mark.seq, mark.match
    wkey = order_key(last_match)
    sources = await pool_sources(session, pool)
    if last_match.event_id not in sources.event_ids:
        return await recompute_pool(session, pool, ctx)
    rows = [
        r
        for r in (await session.execute(games_stmt(sources, after=wkey.at))).all()
        if (r.order_at, r.match_id) > wkey
    ]
    if not rows:
        return {"pool": pool, "mode": "incremental", "games": 0, "players": 0}
    candidates = list(dict.fromkeys(r.match_id for r in rows))
    pids = list({r.player_id for r in rows})
    seen = (
        await session.execute(
            select(RatingHistory.match_id)
            .where(
                RatingHistory.player_id.in_(pids),
                RatingHistory.pool_key == pool,
                RatingHistory.gen == row.history_gen,
                RatingHistory.match_id.in_(candidates),
            )
            .limit(1)
        )
    ).first()
    if seen is not None:
        return await recompute_pool(session, pool, ctx)
    initial: dict[str, tuple[float, int]] = {}
    starts: dict[str, float | None] = {}
    for pid, rating, games, start in await session.execute(
        select(Rating.player_id, Rating.rating, Rating.games, Rating.start_rating).where(
            Rating.pool_key == pool, Rating.player_id.in_(pids)
        )
    ):
        initial[pid] = (float(rating), int(games))
        starts[pid] = start
    state = core.PoolState()
    b = GameBuilder(sources, cfg, state, initial)
    hist = core.rate_stream(b.feed([tuple(r) for r in rows], final=True), cfg, state)
    if not b.match_ids:
        return {"pool": pool, "mode": "incremental", "games": 0, "players": 0}
    now = utcnow()
    new = []
    for i, pid in enumerate(b.players):
        _, games_before = initial.get(pid, (0.0, 0))
        if state.games[i] == games_before:
            continue  # held at its rating, not rated (per-character pools)
        if pid in starts:
            await session.execute(
                update(Rating)
                .where(Rating.pool_key == pool, Rating.player_id == pid)
                .values(rating=state.ratings[i], games=state.games[i], updated_at=now)
            )
        else:
            new.append((pool, pid, state.ratings[i], state.games[i], None, now))
    if new:
        await bulk_insert(session, Rating, RATING_COLS, new)
    await write_history(session, pool, b.players, b.match_ids, hist, last_seq + 1, row.history_gen)
    _set_mark(row, b, hist, last_seq)
    await session.flush()
    await outbox.ratings_updated(session, pool, RatingChange.RATED, len(b.match_ids))
    return {"pool": pool, "mode": "incremental", "games": len(b.match_ids), "players": len(b.players)}


async def update_job(session: AsyncSession, ctx: JobContext) -> PoolResult:
    # run_job marks the job done in this same transaction: the ratings and "done" commit together
    return await update_pool(session, ctx.args["pool"], ctx)


async def recompute_job(session: AsyncSession, ctx: JobContext) -> PoolResult:
    await _fast_commit(session)
    return await recompute_pool(session, ctx.args["pool"], ctx)
