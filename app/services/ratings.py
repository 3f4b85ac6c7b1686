"""Ratings: pools, the incremental update and the full recompute, run as jobs
(battlebooks.md "World rankings"; api.md "Resources"; the rule itself is in app/core/ratings.py).

What the lifecycle code calls, in the transaction that confirms (or corrects) a result:
``enqueue_rating_update(session, match_id)``. For a ruling that touches pools wholesale:
``enqueue_recompute(session, pool_keys)`` (``match_pools(session, match_id)`` names a match's pools).

Order of games (stable, documented): a pool's games are rated in the order of
``(coalesce(Match.reported_at, Match.created_at), Match.id)``, seats by seat number. A correction keeps
the game's original position as long as the results service leaves ``reported_at`` (the first report's
time) alone when it corrects a result.

Which matches rate: ``Match.status == "confirmed"`` in an event whose settings have ``rated: true``
and that rates into the pool (core ``pool_plan``); per-character pools take the matches where a seat
played that character. Players come from ``Entry.player_id``. Matches of a stage whose settings say
``rated: false`` do not rate (the BGA best-of-3 final). A game with a violation rates every violator
below every non-violator (they score so: formats.md "Violations"), whatever places were reported.

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
  players' starting ratings (``Rating.start_rating``, else the pool's start). Streams the rows through
  a server-side cursor and writes with COPY on Postgres (history in player-index order), executemany
  on SQLite. ``rating_history`` is derived data without foreign keys (migration 0003).

Rulings where the spec is silent:
* ``enqueue_rating_update`` sends a match that is already in a pool's history (a correction or a
  ruling) or that sorts before the pool's high-water mark (confirmed late) to a full recompute of
  that pool instead of an incremental update; it also covers pools the match no longer rates into.
* A pool is created the first time an event rates into it, its settings seeded from the event's
  ``rating.k/start/period``; afterwards only the admin's pool settings count. Changing a pool's
  settings or a player's starting rating enqueues a recompute of that pool.
* History seq numbers count the pool's history rows from 0 in rating order, so the incremental path
  and a recompute write identical rows.
* The incremental job detects an inconsistent history it can see (its mark's match gone, unconfirmed
  or no longer rated; a new match already rated); a corrected result of a match already rated is
  caught where it is reported, by ``enqueue_rating_update``, which queues the recompute.
"""

from __future__ import annotations

import base64
import struct
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.core.errors import InvalidInput, NotFound, Problem
from app.core.vocabulary import Outcome
from app.db.base import utcnow
from app.db.models import (
    Entry,
    Event,
    Job,
    Match,
    Player,
    Rating,
    RatingHistory,
    RatingPool,
    Round,
    Seat,
    Stage,
)
from app.jobs import JobContext, create_job
from app.observability.metrics import PoolLag

UPDATE_KIND = "ratings_update"
RECOMPUTE_KIND = "ratings_recompute"
CHUNK = 20_000

OrderKey = tuple[datetime, str]


def _order_col() -> Any:
    return func.coalesce(Match.reported_at, Match.created_at)


def _key(m: Match) -> OrderKey:
    return (m.reported_at or m.created_at, m.id)


# --------------------------------------------------------------------------- pools


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


async def _rated_events(session: AsyncSession) -> list[tuple[str, core.PoolPlan]]:
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
    for eid, plan in await _rated_events(session):
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


async def _ensure_pool(
    session: AsyncSession, key: str, game_key: str, character: str | None, seed: dict[str, Any]
) -> None:
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
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        await session.execute(pg_insert(RatingPool).values(**values).on_conflict_do_nothing())
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        await session.execute(sqlite_insert(RatingPool).values(**values).on_conflict_do_nothing())


async def _watermark(session: AsyncSession, pool: str) -> tuple[int, Match | None] | None:
    """The pool's high-water mark: its last history row's seq and that row's match (kept on the
    pool row by both jobs), or None when the pool has no history."""
    row = (
        await session.execute(
            select(RatingPool.last_seq, RatingPool.last_match_id).where(RatingPool.key == pool)
        )
    ).one_or_none()
    if row is None or row.last_seq is None:
        return None
    match = await session.get(Match, row.last_match_id) if row.last_match_id is not None else None
    return row.last_seq, match


def _history_pools_stmt(match_id: str) -> Any:
    """The pools holding a match's history, found through its players' rows (indexed by player)."""
    players = select(Entry.player_id).join(Seat, Seat.entry_id == Entry.id).where(Seat.match_id == match_id)
    return (
        select(RatingHistory.pool_key)
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
    had = (await session.execute(_history_pools_stmt(match_id))).scalars()
    for k in had:
        if k not in keys:
            keys.append(k)
    return keys


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
            await _ensure_pool(session, plan.overall, event.game_key, None, seed)
            current.append(plan.overall)
        if plan.character_base is not None:
            for c in chars:
                if not c:
                    continue
                key = core.character_pool(plan.character_base, c)
                if key not in current:
                    await _ensure_pool(session, key, event.game_key, c, seed)
                    current.append(key)
    had = set((await session.execute(_history_pools_stmt(match_id))).scalars())
    jobs: list[Job] = []
    for pool in current + sorted(had - set(current)):
        recompute = pool in had
        if not recompute:
            # Lock the pool as the jobs do: a running job finishes first and its mark is seen here,
            # or it starts after this transaction commits and sees this match.
            await session.execute(select(RatingPool.key).where(RatingPool.key == pool).with_for_update())
            mark = await _watermark(session, pool)
            if mark is not None and (mark[1] is None or _key(match) < _key(mark[1])):
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
        await get_pool(session, pool)
        jobs.append(
            await create_job(session, RECOMPUTE_KIND, {"pool": pool}, dedup_key=f"ratings:recompute:{pool}")
        )
    return jobs


# --------------------------------------------------------------------------- reading games


def _games_stmt(sources: Sources, after: datetime | None = None) -> Any:
    stmt = (
        select(
            Match.id,
            Match.event_id,
            Match.outcome,
            Entry.player_id,
            Seat.place,
            Seat.character,
            _order_col().label("k"),
            Seat.violation,
        )
        .join(Seat, Seat.match_id == Match.id)
        .join(Entry, Entry.id == Seat.entry_id)
        .where(Match.event_id.in_(sources.event_ids), Match.status == "confirmed")
        .order_by(_order_col(), Match.id, Seat.seat)
    )
    if sources.unrated_stages:
        stmt = stmt.where(
            Match.round_id.not_in(select(Round.id).where(Round.stage_id.in_(sources.unrated_stages)))
        )
    if after is not None:
        stmt = stmt.where(or_(Match.reported_at >= after, Match.reported_at.is_(None)))
    return stmt


async def _stream_rows(session: AsyncSession, stmt: Any) -> AsyncIterator[Sequence[Any]]:
    """The rows of ``stmt`` in chunks, through a server-side cursor (asyncpg) or a stream."""
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        conn = await session.connection()
        raw = await conn.get_raw_connection()
        apg = raw.driver_connection
        assert apg is not None
        # Sort in memory and plan for reading every row (a cursor plans for the first 10% otherwise);
        # SET LOCAL lasts until this transaction ends.
        await apg.execute("SET LOCAL work_mem = '256MB'")
        await apg.execute("SET LOCAL cursor_tuple_fraction = 1.0")
        compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = compiled.construct_params()
        # asyncpg wants positional $n parameters in the order the compiler lists them
        args = [params[name] for name in compiled.positiontup or []]
        cursor = await apg.cursor(str(compiled), *args)
        while True:
            chunk = await cursor.fetch(CHUNK)
            if not chunk:
                break
            yield chunk
        return
    result = await session.stream(stmt.execution_options(yield_per=CHUNK))
    async for part in result.partitions(CHUNK):
        yield [tuple(r) for r in part]


_UNRATED_2P = core.NEVER_RATED | {"forfeit"}


class _Builder:
    """Turns ordered (match, seat) rows into the core's stream games, indexing players.

    Rows arrive in chunks; the rows of a chunk's last match are held back until the next chunk
    (a match's seats may straddle two chunks)."""

    def __init__(
        self,
        sources: Sources,
        cfg: core.PoolConfig,
        state: core.PoolState,
        initial: dict[str, tuple[float, int]],
    ) -> None:
        self.char_events = set(sources.by_character)
        self.character = sources.character
        self.cfg = cfg
        self.state = state
        self.initial = initial
        self.index: dict[str, int] = {}
        self.players: list[str] = []
        self.match_ids: list[str] = []
        self.matches_seen = 0
        self._carry: list[Sequence[Any]] = []

    def player(self, pid: str) -> int:
        i = self.index.get(pid)
        if i is None:
            i = self.index[pid] = len(self.players)
            self.players.append(pid)
            rating, games = self.initial.get(pid, (self.cfg.start, 0))
            self.state.ratings.append(rating)
            self.state.games.append(games)
        return i

    def feed(self, chunk: Sequence[Sequence[Any]], final: bool = False) -> list[core.StreamGame]:
        rows = self._carry + list(chunk) if self._carry else list(chunk)
        self._carry = []
        if not final and rows:
            last = rows[-1][0]
            cut = len(rows)
            while cut > 0 and rows[cut - 1][0] == last:
                cut -= 1
            self._carry = rows[cut:]
            rows = rows[:cut]
        out: list[core.StreamGame] = []
        append = out.append
        start = 0
        n = len(rows)
        char_events = self.char_events
        plain = not self.cfg.rate_forfeits
        draws = core.DRAW_OUTCOMES
        player = self.player
        match_ids = self.match_ids
        while start < n:
            first = rows[start]
            mid = first[0]
            end = start + 1
            while end < n and rows[end][0] == mid:
                end += 1
            self.matches_seen += 1
            if (
                end - start == 2
                and plain
                and first[1] not in char_events
                and not first[7]
                and not rows[start + 1][7]
            ):
                # the common case spelled out: two seats, overall pool, no violation
                second = rows[start + 1]
                outcome = first[2]
                pa, pb = first[4], second[4]
                if outcome in draws or (outcome not in _UNRATED_2P and pa is not None and pb is not None):
                    gi = len(match_ids)
                    match_ids.append(mid)
                    append(
                        (
                            gi,
                            first[1],
                            (player(first[3]), player(second[3])),
                            (pa, pb),
                            None,
                            outcome in draws,
                        )
                    )
            else:
                g = self._game(rows[start:end])
                if g is not None:
                    append(g)
            start = end
        return out

    def _game(self, seats: Sequence[Sequence[Any]]) -> core.StreamGame | None:
        first = seats[0]
        outcome = first[2]
        if len(seats) == 2:  # the common case, spelled out
            places: list[Any] = [first[4], seats[1][4]]
        else:
            places = [s[4] for s in seats]
        if any(s[7] for s in seats):  # violators rank below everyone else at the table, as they score
            places = [2 if s[7] else 1 for s in seats]
        if not core.rateable(outcome, len(seats), places, self.cfg):
            return None
        mask: list[bool] | None = None
        if first[1] in self.char_events:
            mask = [s[5] == self.character for s in seats]
            if not any(mask):
                return None
        gi = len(self.match_ids)
        self.match_ids.append(first[0])
        draw = outcome in core.DRAW_OUTCOMES
        return (gi, first[1], [self.player(s[3]) for s in seats], places, mask, draw)


# --------------------------------------------------------------------------- writing


def _id_factory() -> Iterator[str]:
    prefix = str(uuid.uuid4())[:24]
    i = 0
    while True:
        yield f"{prefix}{i:012x}"
        i += 1


async def _write_history(
    session: AsyncSession, pool: str, b: _Builder, hist: core.History, first_seq: int
) -> None:
    """Write the history rows in the order of the player index (player id, then seq): the index then
    fills page after page instead of at random places, which makes a large rewrite much faster."""
    now = utcnow()
    ids = _id_factory()
    players, matches = b.players, b.match_ids
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    buckets: list[list[int]] = [[] for _ in players]
    for i, p in enumerate(h_player):
        buckets[p].append(i)
    order = (i for p in sorted(range(len(players)), key=players.__getitem__) for i in buckets[p])
    cols = ["id", "pool_key", "player_id", "match_id", "seq", "before", "after", "created_at"]
    apg = await _asyncpg(session)
    if apg is not None:
        # COPY in binary format, each row packed here from pre-encoded parts: several times cheaper
        # than asyncpg encoding every field of a record (or than formatting text rows)
        await apg.copy_to_table(
            "rating_history",
            source=_binary_history(pool, players, matches, hist, order, first_seq, now),
            columns=cols,
            format="binary",
        )
        return
    records = (
        (
            next(ids),
            pool,
            players[h_player[i]],
            matches[h_game[i]],
            first_seq + i,
            h_before[i],
            h_after[i],
            now,
        )
        for i in order
    )
    await _bulk_insert(session, RatingHistory, cols, records)


_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TAIL = struct.Struct(">iiidid")  # seq int4, before float8, after float8, each with its length
_LEN = struct.Struct(">i")


async def _binary_history(
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    order: Iterable[int],
    first_seq: int,
    now: datetime,
) -> AsyncIterator[bytes]:
    """rating_history rows (id, pool_key, player_id, match_id, seq, before, after, created_at) in
    PostgreSQL's binary COPY format."""
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    count = struct.pack(">h", 8)
    pool_b = pool.encode()
    pool_f = _LEN.pack(len(pool_b)) + pool_b
    micros = (now - _PG_EPOCH) // timedelta(microseconds=1)
    ts_f = struct.pack(">iq", 8, micros)
    player_f = [_LEN.pack(len(b)) + b for b in (p.encode() for p in players)]
    prefix = count + _LEN.pack(36) + str(uuid.uuid4())[:24].encode()
    pack, lenpack = _TAIL.pack, _LEN.pack
    parts: list[bytes] = [_COPY_HEADER]
    for k, i in enumerate(order):
        mid = matches[h_game[i]].encode()
        parts += (
            prefix,
            b"%012x" % k,
            pool_f,
            player_f[h_player[i]],
            lenpack(len(mid)),
            mid,
            pack(4, first_seq + i, 8, h_before[i], 8, h_after[i]),
            ts_f,
        )
        if len(parts) >= 8 * CHUNK:
            yield b"".join(parts)
            parts = []
    parts.append(b"\xff\xff")  # trailer: field count -1
    yield b"".join(parts)


async def _asyncpg(session: AsyncSession) -> Any:
    """The asyncpg connection under this session's transaction, or None off Postgres."""
    if session.bind is None or session.bind.dialect.name != "postgresql":
        return None
    conn = await session.connection()
    raw = await conn.get_raw_connection()
    return raw.driver_connection


async def _bulk_insert(
    session: AsyncSession, model: Any, cols: list[str], records: Iterable[tuple[Any, ...]]
) -> None:
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        conn = await session.connection()
        raw = await conn.get_raw_connection()
        apg = raw.driver_connection
        assert apg is not None
        await apg.copy_records_to_table(model.__tablename__, records=records, columns=cols)
        return
    batch: list[dict[str, Any]] = []
    for rec in records:
        batch.append(dict(zip(cols, rec, strict=True)))
        if len(batch) >= 5000:
            await session.execute(insert(model), batch)
            batch = []
    if batch:
        await session.execute(insert(model), batch)


# --------------------------------------------------------------------------- the jobs


def _set_mark(row: RatingPool, b: _Builder, hist: core.History, before: int) -> None:
    if len(hist):
        row.last_seq = before + len(hist)
        row.last_match_id = b.match_ids[hist.game[-1]]
    elif before < 0:
        row.last_seq = None
        row.last_match_id = None


async def _lock_pool(session: AsyncSession, pool: str) -> RatingPool | None:
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


async def _progress(ctx: JobContext | None, value: float) -> None:
    if ctx is not None:
        await ctx.progress(value)


async def recompute_pool(session: AsyncSession, pool: str, ctx: JobContext | None = None) -> dict[str, Any]:
    """Rate every game of the pool again from the starting ratings; one transaction, not committed."""
    row = await _lock_pool(session, pool)
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
    b = _Builder(sources, cfg, state, {pid: (r, 0) for pid, r in starts.items()})
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
        async for chunk in _stream_rows(session, _games_stmt(sources)):
            core.rate_stream(b.feed(chunk), cfg, state, hist)
            await _progress(ctx, 0.8 * b.matches_seen / max(total, 1))
        core.rate_stream(b.feed([], final=True), cfg, state, hist)
    await _progress(ctx, 0.8)
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
    cols = ["pool_key", "player_id", "rating", "games", "start_rating", "updated_at"]
    await _bulk_insert(session, Rating, cols, rating_rows)
    await _progress(ctx, 0.85)
    await _write_history(session, pool, b, hist, 0)
    _set_mark(row, b, hist, -1)
    await session.flush()
    return {"pool": pool, "mode": "recompute", "games": len(b.match_ids), "players": len(b.players)}


async def update_pool(session: AsyncSession, pool: str, ctx: JobContext | None = None) -> dict[str, Any]:
    """Rate the pool's confirmed games after its high-water mark; recompute when the history is not
    a clean prefix of the games (see the module docstring). One transaction, not committed."""
    row = await _lock_pool(session, pool)
    if row is None:
        raise NotFound(f"rating pool {pool!r} not found")
    cfg = core.pool_config(row.settings)
    if cfg.period == "event":
        return await recompute_pool(session, pool, ctx)
    mark = await _watermark(session, pool)
    if mark is None or mark[1] is None or mark[1].status != "confirmed":
        return await recompute_pool(session, pool, ctx)
    last_seq, last_match = mark[0], mark[1]
    wkey = _key(last_match)
    sources = await pool_sources(session, pool)
    if last_match.event_id not in sources.event_ids:
        return await recompute_pool(session, pool, ctx)
    rows = [
        r for r in (await session.execute(_games_stmt(sources, after=wkey[0]))).all() if (r[6], r[0]) > wkey
    ]
    if not rows:
        return {"pool": pool, "mode": "incremental", "games": 0, "players": 0}
    candidates = list(dict.fromkeys(r[0] for r in rows))
    pids = list({r[3] for r in rows})
    seen = (
        await session.execute(
            select(RatingHistory.match_id)
            .where(
                RatingHistory.player_id.in_(pids),
                RatingHistory.pool_key == pool,
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
    b = _Builder(sources, cfg, state, initial)
    hist = core.rate_stream(b.feed([tuple(r) for r in rows], final=True), cfg, state)
    if not b.match_ids:
        return {"pool": pool, "mode": "incremental", "games": 0, "players": 0}
    now = utcnow()
    new = []
    for i, pid in enumerate(b.players):
        if state.games[i] == initial.get(pid, (0.0, 0))[1]:
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
        cols = ["pool_key", "player_id", "rating", "games", "start_rating", "updated_at"]
        await _bulk_insert(session, Rating, cols, new)
    await _write_history(session, pool, b, hist, last_seq + 1)
    _set_mark(row, b, hist, last_seq)
    await session.flush()
    return {"pool": pool, "mode": "incremental", "games": len(b.match_ids), "players": len(b.players)}


async def update_job(session: AsyncSession, ctx: JobContext) -> dict[str, Any]:
    # run_job marks the job done in this same transaction: the ratings and "done" commit together
    return await update_pool(session, ctx.args["pool"], ctx)


async def recompute_job(session: AsyncSession, ctx: JobContext) -> dict[str, Any]:
    return await recompute_pool(session, ctx.args["pool"], ctx)


# --------------------------------------------------------------------------- reading for the API


@dataclass(frozen=True)
class BoardRow:
    rank: int
    player_id: str
    name: str
    rating: float
    games: int


def _encode_cursor(rating: float, player_id: str) -> str:
    return base64.urlsafe_b64encode(f"{rating.hex()}|{player_id}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        rating, player_id = raw.split("|", 1)
        return float.fromhex(rating), player_id
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("invalid cursor", [Problem(("query", "cursor"), "invalid cursor")]) from exc


async def leaderboard(
    session: AsyncSession, pool: str, limit: int, cursor: str | None
) -> tuple[list[BoardRow], str | None]:
    """The pool's players by rating (highest first, then player id); equal ratings share a rank
    (competition ranking: 1, 2, 2, 4)."""
    await get_pool(session, pool)
    stmt = (
        select(Rating.player_id, Player.name, Rating.rating, Rating.games)
        .join(Player, Player.id == Rating.player_id)
        .where(Rating.pool_key == pool)
    )
    before = 0
    if cursor:
        cr, cpid = _decode_cursor(cursor)
        after = or_(Rating.rating < cr, (Rating.rating == cr) & (Rating.player_id > cpid))
        stmt = stmt.where(after)
        before = int(
            (
                await session.execute(
                    select(func.count()).select_from(Rating).where(Rating.pool_key == pool, ~after)
                )
            ).scalar_one()
        )
    rows = (
        await session.execute(stmt.order_by(Rating.rating.desc(), Rating.player_id).limit(limit + 1))
    ).all()
    out: list[BoardRow] = []
    for i, (pid, name, rating, games) in enumerate(rows[:limit]):
        if i > 0 and rating == out[-1].rating:
            rank = out[-1].rank
        elif i == 0 and before:
            higher = (
                await session.execute(
                    select(func.count())
                    .select_from(Rating)
                    .where(Rating.pool_key == pool, Rating.rating > rating)
                )
            ).scalar_one()
            rank = int(higher) + 1
        else:
            rank = before + i + 1
        out.append(BoardRow(rank, pid, name, float(rating), int(games)))
    nxt = _encode_cursor(out[-1].rating, out[-1].player_id) if len(rows) > limit else None
    return out, nxt


@dataclass(frozen=True)
class PlayerPoolRating:
    pool: str
    rating: float
    games: int
    start_rating: float | None
    history: list[tuple[str | None, float, float]]


async def player_ratings(session: AsyncSession, player_id: str) -> list[PlayerPoolRating]:
    if await session.get(Player, player_id) is None:
        raise NotFound(f"player {player_id} not found")
    ratings = (
        (await session.execute(select(Rating).where(Rating.player_id == player_id).order_by(Rating.pool_key)))
        .scalars()
        .all()
    )
    hist: dict[str, list[tuple[str | None, float, float]]] = {}
    for pool, mid, bf, af in await session.execute(
        select(RatingHistory.pool_key, RatingHistory.match_id, RatingHistory.before, RatingHistory.after)
        .where(RatingHistory.player_id == player_id)
        .order_by(RatingHistory.pool_key, RatingHistory.seq)
    ):
        hist.setdefault(pool, []).append((mid, bf, af))
    return [
        PlayerPoolRating(r.pool_key, r.rating, r.games, r.start_rating, hist.get(r.pool_key, []))
        for r in ratings
    ]


async def set_start_rating(
    session: AsyncSession, player_id: str, pool: str, rating: float
) -> tuple[Rating, Job | None]:
    """Give a player a starting rating in a pool (an imported rating). A player without games takes
    it at once; one with games gets it through the recompute queued here."""
    row = await get_pool(session, pool)
    cfg = core.pool_config(row.settings)
    if not cfg.min_rating <= rating <= cfg.max_rating:
        raise InvalidInput(
            "rating out of range",
            [Problem(("body", "rating"), f"must lie within [{cfg.min_rating}, {cfg.max_rating}]")],
        )
    if await session.get(Player, player_id) is None:
        raise NotFound(f"player {player_id} not found")
    current = (
        await session.execute(
            select(Rating).where(Rating.pool_key == pool, Rating.player_id == player_id).with_for_update()
        )
    ).scalar_one_or_none()
    job: Job | None = None
    if current is None:
        current = Rating(pool_key=pool, player_id=player_id, rating=rating, games=0, start_rating=rating)
        session.add(current)
    else:
        current.start_rating = rating
        if current.games == 0:
            current.rating = rating
        else:
            (job,) = await enqueue_recompute(session, [pool])
    await session.flush()
    return current, job


async def pool_settings(session: AsyncSession, pool: str) -> dict[str, Any]:
    row = await get_pool(session, pool)
    return core.config_settings(core.pool_config(row.settings))


async def put_pool_settings(
    session: AsyncSession, pool: str, settings: dict[str, Any]
) -> tuple[dict[str, Any], Job | None]:
    """Replace a pool's settings (validated; 422 lists every problem). Creates the pool when it does
    not exist yet (configuring a pool before its first event); otherwise queues a recompute."""
    problems = core.settings_problems(settings)
    if problems:
        raise InvalidInput(
            f"{len(problems)} problem(s) with the pool settings",
            [Problem(("body", *loc), msg) for loc, msg in problems],
        )
    row = await session.get(RatingPool, pool, with_for_update=True)
    job: Job | None = None
    if row is None:
        session.add(RatingPool(key=pool, settings=dict(settings), version=0))
    else:
        row.settings = dict(settings)
        (job,) = await enqueue_recompute(session, [pool])
    await session.flush()
    return core.config_settings(core.pool_config(settings)), job


# --------------------------------------------------------------------------- lag, for GET /metrics


async def pool_lag(session: AsyncSession, now: datetime | None = None) -> list[PoolLag]:
    """Each pool's confirmed matches that rate into it and sort after its high-water mark (all of
    them before its first job), with the age of the oldest: what the ratings jobs still owe it.
    Counted in SQL, one aggregate per pool: byes, voids and (unless the pool rates them) forfeits do
    not count, nor do the matches of a ``rated: false`` stage or, in a character pool, a match where
    nobody played that character."""
    now = now or utcnow()
    rated = await _rated_events(session)
    pools = (
        await session.execute(select(RatingPool.key, RatingPool.settings, RatingPool.last_match_id))
    ).all()
    if not pools:
        return []
    ids = [eid for eid, _ in rated]
    unrated_by_event: dict[str, list[str]] = {}
    if ids:
        for sid, eid, st in await session.execute(
            select(Stage.id, Stage.event_id, Stage.settings).where(Stage.event_id.in_(ids))
        ):
            if (st or {}).get("rated") is False:
                unrated_by_event.setdefault(eid, []).append(sid)
    out: list[PoolLag] = []
    for key, settings, last_match_id in pools:
        overall = [eid for eid, plan in rated if plan.overall == key]
        by_char = [
            eid
            for eid, plan in rated
            if plan.overall != key
            and plan.character_base is not None
            and key.startswith(plan.character_base + ":")
        ]
        if not overall and not by_char:
            out.append(PoolLag(key, 0, 0.0))
            continue
        never: set[str] = set(core.NEVER_RATED)
        if not core.pool_config(settings).rate_forfeits:
            never.add(Outcome.FORFEIT)
        where: list[Any] = [
            Match.status == "confirmed",
            or_(Match.outcome.is_(None), Match.outcome.not_in(never)),
        ]
        feeds: list[Any] = []
        if overall:
            feeds.append(Match.event_id.in_(overall))
        if by_char:
            character = key.split(":", 1)[1]
            played = exists().where(Seat.match_id == Match.id, Seat.character == character)
            feeds.append(and_(Match.event_id.in_(by_char), played))
        where.append(or_(*feeds))
        unrated = [sid for eid in overall + by_char for sid in unrated_by_event.get(eid, ())]
        if unrated:
            where.append(Match.round_id.not_in(select(Round.id).where(Round.stage_id.in_(unrated))))
        mark = (
            (
                await session.execute(select(_order_col(), Match.id).where(Match.id == last_match_id))
            ).one_or_none()
            if last_match_id is not None
            else None
        )
        if mark is not None:
            k, mid = mark
            where.append(or_(_order_col() > k, and_(_order_col() == k, Match.id > mid)))
        count, first = (
            await session.execute(
                select(func.count(), func.min(_order_col())).select_from(Match).where(*where)
            )
        ).one()
        age = max(0.0, (now - first).total_seconds()) if count and first is not None else 0.0
        out.append(PoolLag(key, int(count), age))
    return out
