"""Rating jobs on real Postgres (and a real arq worker on real Redis): the incremental path equals a
clean recompute on a seeded random history, both are idempotent, and a worker SIGKILLed in the
middle of a recompute leaves nothing behind; restarted, it converges to the clean result."""

from __future__ import annotations

import asyncio
import random
import signal
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert, select, update

from app.core.ratings import RatedGame, pool_config, rate_games
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
from app.jobs import ArqDispatcher, commit_and_dispatch, create_job, run_job
from app.services.job_kinds import KINDS
from app.services.ratings import enqueue_rating_update, jobs, recompute_pool, update_pool
from tests.support.services import redis_url
from tests.support.workers import start_worker, stop, wait_job

T0 = datetime(2026, 1, 1, tzinfo=UTC)
OUTCOMES = ["played"] * 16 + ["draw", "draw", "timeout", "forfeit"]


class History:
    """A seeded random rated history inserted with bulk inserts."""

    def __init__(self, seed: int, players: int, events: int = 2, max_seats: int = 4) -> None:
        self.rnd = random.Random(seed)
        self.players = [str(uuid.uuid4()) for _ in range(players)]
        self.events: list[tuple[str, str, dict[str, str]]] = []  # (event id, round id, player -> entry)
        self.max_seats = max_seats
        self.n = 0
        self.games: list[tuple[datetime, str, RatedGame]] = []

    async def setup(self, s: Any) -> None:
        await s.execute(insert(Player), [{"id": p, "name": f"P{i:04d}"} for i, p in enumerate(self.players)])
        for e in range(len(self.events), 2):
            eid, sid, rid = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
            s.add(
                Event(
                    id=eid,
                    name=f"E{e}",
                    game_key="generic",
                    settings={"rated": True},
                    seed="s" * 16,
                    seed_commitment="0" * 64,
                    status="running",
                    organizer_token_hash=uuid.uuid4().hex,
                )
            )
            await s.flush()
            s.add(Stage(id=sid, event_id=eid, index=0, format="swiss"))
            await s.flush()
            s.add(Round(id=rid, event_id=eid, stage_id=sid, number=1))
            entries = {p: str(uuid.uuid4()) for p in self.players}
            await s.flush()
            await s.execute(
                insert(Entry),
                [
                    {"id": en, "event_id": eid, "player_id": p, "name": p[:8], "token_hash": uuid.uuid4().hex}
                    for p, en in entries.items()
                ],
            )
            self.events.append((eid, rid, entries))

    async def add(self, s: Any, count: int, late: float = 0.0) -> list[str]:
        """Insert ``count`` confirmed matches; a fraction ``late`` sorts before earlier ones."""
        matches, seats, ids = [], [], []
        for _ in range(count):
            self.n += 1
            eid, rid, entries = self.events[self.rnd.randrange(len(self.events))]
            k = self.rnd.choice([2, 2, 2, 3, 4][: self.max_seats + 1])
            who = self.rnd.sample(self.players, k)
            places = [self.rnd.randint(1, k) for _ in who]
            outcome = self.rnd.choice(OUTCOMES)
            minutes = self.n if self.rnd.random() >= late else self.rnd.randint(0, self.n)
            at = T0 + timedelta(minutes=minutes)
            mid = str(uuid.uuid4())
            ids.append(mid)
            matches.append(
                {
                    "id": mid,
                    "event_id": eid,
                    "round_id": rid,
                    "table": self.n,
                    "status": "confirmed",
                    "outcome": outcome,
                    "reported_at": at,
                }
            )
            for i, (p, pl) in enumerate(zip(who, places, strict=True)):
                seats.append(
                    {
                        "id": str(uuid.uuid4()),
                        "match_id": mid,
                        "entry_id": entries[p],
                        "seat": i + 1,
                        "place": pl,
                    }
                )
            self.games.append((at, mid, RatedGame(mid, tuple(who), tuple(places), outcome)))
        await s.execute(insert(Match), matches)
        await s.execute(insert(Seat), seats)
        return ids

    def expected(self, settings: dict[str, Any] | None = None) -> dict[str, float]:
        games = [g for _, _, g in sorted(self.games, key=lambda t: (t[0], t[1]))]
        return rate_games(games, pool_config(settings)).ratings


async def snapshot(sm: Any, pool: str = "generic") -> tuple[list[Any], list[Any]]:
    async with sm() as s:
        ratings = [
            tuple(r)
            for r in await s.execute(
                select(Rating.player_id, Rating.rating, Rating.games, Rating.start_rating)
                .where(Rating.pool_key == pool)
                .order_by(Rating.player_id)
            )
        ]
        history = [
            tuple(r)
            for r in await s.execute(
                select(
                    RatingHistory.seq,
                    RatingHistory.player_id,
                    RatingHistory.match_id,
                    RatingHistory.before,
                    RatingHistory.after,
                )
                .where(RatingHistory.pool_key == pool)
                .order_by(RatingHistory.seq)
            )
        ]
    return ratings, history


async def run_queued(sm: Any) -> list[str]:
    async with sm() as s:
        ids = list(
            (await s.execute(select(Job.id).where(Job.status == "queued").order_by(Job.created_at))).scalars()
        )
    return [await run_job(sm, i, KINDS) for i in ids]


async def test_incremental_equals_recompute_on_a_random_history(pg_sessionmaker: Any) -> None:
    sm = pg_sessionmaker
    h = History(seed=7, players=30)
    async with sm() as s:
        await h.setup(s)
        await s.commit()
    kinds_seen: set[str] = set()
    for batch in range(12):
        async with sm() as s:
            ids = await h.add(s, 25, late=0.08 if batch > 2 else 0.0)
            for mid in ids:
                kinds_seen |= {j.kind for j in await enqueue_rating_update(s, mid)}
            await s.commit()
        assert set(await run_queued(sm)) <= {"done", "skipped"}
    assert kinds_seen == {"ratings_update", "ratings_recompute"}  # late confirmations took the recompute path
    incremental = await snapshot(sm)
    expected = h.expected()
    assert {p: r for p, r, _, _ in incremental[0]} == expected  # bit for bit the pure core's answer

    # running the update again changes nothing; a recompute (twice) writes exactly the same state
    async with sm() as s:
        assert (await update_pool(s, "generic"))["games"] == 0
        await s.commit()
    for _ in range(2):
        async with sm() as s:
            result = await recompute_pool(s, "generic")
            await s.commit()
        assert await snapshot(sm) == incremental
    assert result["games"] == sum(1 for _, _, g in h.games if g.outcome != "forfeit")


async def test_killed_worker_mid_recompute_converges(
    pg_url: str,
    pg_sessionmaker: Any,
    queue: str,
    worker_procs: list[Any],
) -> None:
    sm = pg_sessionmaker
    h = History(seed=11, players=200, max_seats=2)
    async with sm() as s:
        await h.setup(s)
        for _ in range(4):
            await h.add(s, 1000)
        s.add(RatingPool(key="generic", game_key="generic", settings={}, version=0))
        await s.commit()
    async with sm() as s:
        await recompute_pool(s, "generic")
        await s.commit()
    old = await snapshot(sm)
    assert len(old[1]) == 2 * sum(1 for _, _, g in h.games if g.outcome != "forfeit")

    # the admin changes K: a recompute is due; the first worker dies holding it uncommitted
    settings = {"k": [[10, 40], [None, 20]]}
    async with sm() as s:
        await s.execute(update(RatingPool).where(RatingPool.key == "generic").values(settings=settings))
        job = await create_job(s, "slow_ratings_recompute", {"pool": "generic"})
        await commit_and_dispatch(s, ArqDispatcher(redis_url(), queue))
    first = start_worker("tests.workers.ratings_slow_worker", pg_url, queue)
    worker_procs.append(first)
    deadline = datetime.now(UTC) + timedelta(seconds=30)
    while True:
        async with sm() as s:
            j = await s.get(Job, job.id)
            assert j is not None
            if j.progress >= 0.99:
                break
        assert datetime.now(UTC) < deadline, "the recompute never got going"
        await asyncio.sleep(0.1)
    assert await snapshot(sm) == old  # everything it wrote is still uncommitted
    stop(first, signal.SIGKILL)
    assert await snapshot(sm) == old  # and died with it

    worker_procs.append(start_worker("tests.workers.ratings_slow_worker", pg_url, queue))
    done = await wait_job(sm, job.id, {"done", "failed"}, within=45)
    assert done.status == "done", done.error
    assert done.attempts >= 2
    after = await snapshot(sm)
    assert {p: r for p, r, _, _ in after[0]} == h.expected(settings)
    async with sm() as s:  # exactly what a clean recompute writes
        await recompute_pool(s, "generic")
        await s.commit()
    assert await snapshot(sm) == after

    # the same worker then takes an incremental update after one more result
    async with sm() as s:
        (mid,) = await h.add(s, 1)
        (upd,) = await enqueue_rating_update(s, mid)
        assert upd.kind == "ratings_update"
        await commit_and_dispatch(s, ArqDispatcher(redis_url(), queue))
    done = await wait_job(sm, upd.id, {"done", "failed"}, within=30)
    assert done.status == "done" and done.result is not None, done.error
    assert done.result["mode"] == "incremental"
    assert {p: r for p, r, _, _ in (await snapshot(sm))[0]} == h.expected(settings)


async def test_a_recompute_accounts_for_its_wall_time(pg_sessionmaker: Any) -> None:
    """The phases a recompute logs are disjoint spans of its wall time: their sum is within it."""
    sm = pg_sessionmaker
    h = History(seed=5, players=40)
    async with sm() as s:
        await h.setup(s)
        await h.add(s, 200)
        s.add(RatingPool(key="generic", game_key="generic", settings={}, version=0))
        await s.commit()
    for _ in range(2):  # into an empty history, then replacing it
        phases = jobs.Phases()
        async with sm() as s:
            await recompute_pool(s, "generic", phases=phases)
            await s.commit()
        assert min(phases.read, phases.build, phases.rate, phases.write) > 0
        assert phases.overlap <= 1e-6
    assert {p: r for p, r, _, _ in (await snapshot(sm))[0]} == h.expected()
