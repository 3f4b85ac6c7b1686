"""Ratings benchmark (not a test): ``python -m bench.ratings_bench [--quick] [--recompute-only]``.

* Full recompute of one pool holding 1,000,000 two-player games among 10,000 players (``--quick``:
  20,000 games, 2,000 players), read from Postgres and written back with its history, in a throwaway
  database on TEST_DATABASE_URL's server (migrated, bulk-loaded with COPY, vacuumed). Twice: into a
  pool without history, then again replacing the history the first run wrote (what a recompute
  after a correction or a settings change does), each from a vacuumed table. Each with its phases:
  reading the rows, building the games, the Elo arithmetic, writing ratings and history (the
  deletes included), the wall time and the overlap (the phases' sum less the wall). Peak memory of the recompute:
  tracemalloc (a third, traced run) and ru_maxrss.
* Against the straightforward ORM loop (each match loaded with its seats through the ORM, each rating
  row updated and the history added with a flush per game), timed on a 20,000-game slice (``--quick``:
  2,000) and extrapolated per game to the full pool.
* The pure arithmetic of the core fast path on the same number of games, in memory.
* Incremental update after one new result: median of 50 runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import selectinload

from app.cli import migrate
from app.core.identity import name_key
from app.core.ratings import PoolConfig, PoolState, expectation, rate_stream
from app.db.models import Entry, Match, Rating, RatingHistory, RatingPool
from app.db.session import make_engine, make_sessionmaker
from app.services.ratings import recompute_pool, update_pool
from app.services.ratings.jobs import Phases

T0 = datetime(2025, 1, 1, tzinfo=UTC)
TARGET_S = 12.0  # the full recompute of 1,000,000 games on a 2-core machine


def ids(n: int) -> list[str]:
    prefix = str(uuid.uuid4())[:24]
    return [f"{prefix}{i:012x}" for i in range(n)]


async def admin(server: str, sql: str) -> None:
    import asyncpg

    u = make_url(server)
    conn = await asyncpg.connect(
        host=u.host,
        port=u.port or 5432,
        user=u.username,
        password=u.password,
        database=u.database or "postgres",
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def load(url: str, games: int, players: int, events: int) -> None:
    import asyncpg

    u = make_url(url)
    conn = await asyncpg.connect(
        host=u.host, port=u.port or 5432, user=u.username, password=u.password, database=u.database
    )
    rnd = random.Random(2026)
    now = datetime.now(UTC)
    try:
        pids = ids(players)
        await conn.copy_records_to_table(
            "players",
            records=[(p, f"Player {i:05d}", name_key(f"Player {i:05d}"), now) for i, p in enumerate(pids)],
            columns=["id", "name", "name_key", "created_at"],
        )
        ev: list[tuple[str, str, list[str]]] = []
        for e in range(events):
            eid, sid, rid = (str(uuid.uuid4()) for _ in range(3))
            await conn.execute(
                "INSERT INTO events (id, name, game_key, preset, settings, seed, seed_commitment, status, version,"
                " organizer_token_hash, created_at, updated_at) VALUES ($1, $2, 'generic', 'generic', $3::jsonb,"
                " 'seed-bench', repeat('0', 64), 'finished', 1, $4, $5, $5)",
                eid,
                f"Bench {e}",
                json.dumps({"rated": True}),
                uuid.uuid4().hex,
                now,
            )
            await conn.execute(
                "INSERT INTO stages (id, event_id, index, format, settings, status, created_at)"
                " VALUES ($1, $2, 0, 'swiss', '{}'::jsonb, 'finished', $3)",
                sid,
                eid,
                now,
            )
            await conn.execute(
                "INSERT INTO rounds (id, event_id, stage_id, number, details, created_at)"
                " VALUES ($1, $2, $3, 1, '{}'::jsonb, $4)",
                rid,
                eid,
                sid,
                now,
            )
            entry_ids = ids(players)
            await conn.copy_records_to_table(
                "entries",
                records=[
                    (en, eid, p, "x", "[]", False, "active", uuid.uuid4().hex, now)
                    for en, p in zip(entry_ids, pids, strict=True)
                ],
                columns=[
                    "id",
                    "event_id",
                    "player_id",
                    "name",
                    "characters",
                    "organizer",
                    "status",
                    "token_hash",
                    "created_at",
                ],
            )
            ev.append((eid, rid, entry_ids))
        per_event = games // events
        mids = ids(games)
        sids = iter(ids(2 * games))
        for e, (eid, rid, entry_ids) in enumerate(ev):
            matches = []
            seats = []
            for t in range(per_event):
                g = e * per_event + t
                a = rnd.randrange(players)
                b = (a + 1 + rnd.randrange(players - 1)) % players
                roll = rnd.random()
                outcome = "draw" if roll < 0.1 else "played"
                pa, pb = (1, 2) if roll < 0.55 else (2, 1)
                at = T0 + timedelta(seconds=g)
                matches.append((mids[g], eid, rid, t + 1, "confirmed", outcome, 1, "{}", 1, at, at))
                seats.append((next(sids), mids[g], entry_ids[a], 1, False, pa, False))
                seats.append((next(sids), mids[g], entry_ids[b], 2, False, pb, False))
            await conn.copy_records_to_table(
                "matches",
                records=matches,
                columns=[
                    "id",
                    "event_id",
                    "round_id",
                    "table",
                    "status",
                    "outcome",
                    "best_of",
                    "details",
                    "version",
                    "reported_at",
                    "created_at",
                ],
            )
            await conn.copy_records_to_table(
                "seats",
                records=seats,
                columns=["id", "match_id", "entry_id", "seat", "first_token", "place", "violation"],
            )
        await conn.execute(
            "INSERT INTO rating_pools (key, game_key, settings, version, created_at)"
            " VALUES ('generic', 'generic', '{}'::jsonb, 0, $1), ('orm-slice', 'generic', '{}'::jsonb, 0, $1)",
            now,
        )
        # a settled database: the rows' commit hints set and the visibility map current, as a vacuum
        # leaves them (a first read right after a bulk load would write every page back)
        await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()


async def orm_loop(sm: Any, limit: int) -> float:
    """The straightforward way: ORM objects, one game at a time, a flush per game. Rolled back."""
    cfg = PoolConfig()
    async with sm() as s:
        t = time.perf_counter()
        mids = (
            (
                await s.execute(
                    select(Match.id)
                    .where(Match.status == "confirmed")
                    .order_by(Match.reported_at, Match.id)
                    .limit(limit)
                )
            )
            .scalars()
            .all()
        )
        seq = 0
        for mid in mids:
            m = (
                await s.execute(select(Match).where(Match.id == mid).options(selectinload(Match.seats)))
            ).scalar_one()
            rows = []
            for seat in m.seats:
                entry = await s.get(Entry, seat.entry_id)
                assert entry is not None
                r = await s.get(Rating, ("orm-slice", entry.player_id))
                if r is None:
                    r = Rating(pool_key="orm-slice", player_id=entry.player_id, rating=cfg.start, games=0)
                    s.add(r)
                rows.append((seat, r))
            (sa, ra), (sb, rb) = rows
            score = 0.5 if m.outcome == "draw" else (1.0 if (sa.place or 0) < (sb.place or 0) else 0.0)
            ea = expectation(ra.rating, rb.rating)
            da = cfg.k_for(ra.games) * (score - ea)
            db = cfg.k_for(rb.games) * ((1 - score) - (1 - ea))
            for r, d in ((ra, da), (rb, db)):
                before = r.rating
                r.rating = min(cfg.max_rating, max(cfg.min_rating, before + d))
                r.games += 1
                s.add(
                    RatingHistory(
                        pool_key="orm-slice",
                        player_id=r.player_id,
                        match_id=m.id,
                        seq=seq,
                        before=before,
                        after=r.rating,
                    )
                )
                seq += 1
            await s.flush()
        elapsed = time.perf_counter() - t
        await s.rollback()
    return elapsed


def verdict(seconds: float) -> str:
    return "met" if seconds < TARGET_S else "NOT met"


def arithmetic(games: int, players: int) -> float:
    rnd = random.Random(1)
    stream = []
    for i in range(games):
        a = rnd.randrange(players)
        b = (a + 1 + rnd.randrange(players - 1)) % players
        stream.append((i, None, (a, b), (1, 2) if rnd.random() < 0.5 else (2, 1), None, rnd.random() < 0.1))
    state = PoolState([1500.0] * players, [0] * players)
    t = time.perf_counter()
    rate_stream(stream, PoolConfig(), state)
    return time.perf_counter() - t


async def run(args: argparse.Namespace) -> None:
    server = os.environ.get("TEST_DATABASE_URL")
    if not server:
        sys.exit("TEST_DATABASE_URL is not set (source .test-env)")
    games, players, slice_ = (20_000, 2_000, 2_000) if args.quick else (1_000_000, 10_000, 20_000)
    events = 2 if args.quick else 10
    name = f"arbiter_bench_{uuid.uuid4().hex[:8]}"
    await admin(server, f'CREATE DATABASE "{name}"')
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        await asyncio.to_thread(migrate, url)
        t = time.perf_counter()
        await load(url, games, players, events)
        print(
            f"loaded {games:,} two-player games, {players:,} players, {events} events with COPY in "
            f"{time.perf_counter() - t:.1f} s",
            flush=True,
        )
        engine = make_engine(url)
        sm = make_sessionmaker(engine)

        arith = arithmetic(games, players)
        print(f"core arithmetic only (rate_stream, in memory): {games:,} games in {arith:.2f} s")

        full = 0.0
        for label in ("into an empty history", "replacing that history"):
            # each run from a settled table: the rows the last one replaced vacuumed away beforehand,
            # not by an autovacuum running beside this one
            async with engine.connect() as c:
                await (await c.execution_options(isolation_level="AUTOCOMMIT")).exec_driver_sql(
                    "VACUUM rating_history"
                )
            phases = Phases()
            t = time.perf_counter()
            async with sm() as s:
                result = await recompute_pool(s, "generic", phases=phases)
                await s.commit()
            took = time.perf_counter() - t
            full = full or took
            print(
                f"full recompute {label}, {result['games']:,} games -> {2 * result['games']:,} history "
                f"rows: {took:.2f} s (target < {TARGET_S:.0f} s{'' if args.quick else ', ' + verdict(took)}); "
                f"read {phases.read:.2f} s, build {phases.build:.2f} s, rate {phases.rate:.2f} s, "
                f"write {phases.write:.2f} s; wall {phases.wall:.2f} s, overlap {phases.overlap:.2f} s "
                f"(the phases' sum less the wall), other {took - phases.wall:.2f} s (the commit)",
                flush=True,
            )
        rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if args.recompute_only:
            print(f"ru_maxrss after the recomputes {rss_mib:.0f} MiB (target < 1 GiB)")
            await engine.dispose()
            return

        orm = await orm_loop(sm, slice_)
        per_game = orm / slice_
        print(
            f"ORM loop baseline: {slice_:,} games in {orm:.2f} s = {per_game * 1e3:.3f} ms/game; "
            f"EXTRAPOLATED to {games:,} games: {per_game * games:.0f} s"
        )
        print(
            f"ratio: recompute (into an empty history) is {per_game * games / full:.0f}x faster than the "
            "(extrapolated) ORM loop"
        )

        tracemalloc.start()
        t = time.perf_counter()
        async with sm() as s:
            await recompute_pool(s, "generic")
            await s.commit()
        traced = time.perf_counter() - t
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"peak memory of the recompute: tracemalloc {peak / 2**20:.0f} MiB (a third, traced run: "
            f"{traced:.1f} s); ru_maxrss after the two untraced runs {rss_mib:.0f} MiB (target < 1 GiB)"
        )

        times = []
        async with sm() as s:
            eid, rid = (await s.execute(select(Match.event_id, Match.round_id).limit(1))).one()
            entries = list(
                (await s.execute(select(Entry.id).where(Entry.event_id == eid).limit(50))).scalars()
            )
            await s.execute(select(RatingPool).where(RatingPool.key == "generic"))
        rnd = random.Random(5)
        for i in range(50):
            async with sm() as s:
                from app.db.models import Seat

                m = Match(
                    event_id=eid,
                    round_id=rid,
                    table=10_000_000 + i,
                    status="confirmed",
                    outcome="played",
                    reported_at=T0 + timedelta(seconds=games + i),
                )
                s.add(m)
                await s.flush()
                a, b = rnd.sample(entries, 2)
                s.add_all(
                    [
                        Seat(match_id=m.id, entry_id=a, seat=1, place=1),
                        Seat(match_id=m.id, entry_id=b, seat=2, place=2),
                    ]
                )
                await s.commit()
            t = time.perf_counter()
            async with sm() as s:
                res = await update_pool(s, "generic")
                await s.commit()
            times.append(time.perf_counter() - t)
            assert res["mode"] == "incremental" and res["games"] == 1, res
        print(
            f"incremental update after one result: median {statistics.median(times) * 1e3:.1f} ms over "
            f"{len(times)} runs (target < 50 ms)"
        )
        await engine.dispose()
    finally:
        await admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="20,000 games instead of 1,000,000")
    parser.add_argument(
        "--recompute-only",
        action="store_true",
        help="the full recomputes only (no ORM loop, traced run or incremental updates)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
