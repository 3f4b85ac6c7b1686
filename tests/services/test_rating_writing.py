"""The rating recompute's reading and writing on their own: the history rows it writes read back as
the history says, on Postgres (binary COPY: packed a chunk at a time when the ids share one width,
row by row when they do not) and on SQLite (batched inserts); the streamed read lets go of its
connection when its caller stops early."""

from __future__ import annotations

import random
from collections import deque
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from app.core import ratings as core
from app.db.bulk import asyncpg_connection, bulk_insert
from app.db.models import Player, Rating, RatingHistory, RatingPool
from app.db.session import make_engine, make_sessionmaker
from app.services.ratings import games, writing


def _history(players: int, matches: int, rows: int, seed: int) -> core.History:
    rnd = random.Random(seed)
    hist = core.History()
    for _ in range(rows):
        hist.game.append(rnd.randrange(matches))
        hist.player.append(rnd.randrange(players))
        hist.before.append(rnd.uniform(0, 3000))
        hist.after.append(rnd.uniform(0, 3000))
    return hist


def _ids(n: int, widths: str, seed: int) -> list[str]:
    rnd = random.Random(seed)
    if widths == "one":  # UUIDs, as Arbiter makes them
        return [f"{rnd.getrandbits(128):032x}"[:8] + f"-0000-4000-8000-{i:012x}" for i in range(n)]
    return [f"id-{rnd.randrange(10 ** rnd.randrange(1, 9))}-é{i}" for i in range(n)]  # any width, non-ASCII


@pytest.mark.parametrize("backend", ["postgres", "sqlite"])
@pytest.mark.parametrize("widths", ["one", "many"])
async def test_history_rows_read_back_in_rating_order(
    backend: str, widths: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writing, "COPY_ROWS", 7)  # several chunks, the last one short
    url = request.getfixturevalue("pg_url" if backend == "postgres" else "sqlite_url")
    players, matches = _ids(13, widths, 1), _ids(40, widths, 2)
    hist = _history(len(players), len(matches), 101, 3)
    engine = make_engine(url)
    sm: Any = make_sessionmaker(engine)
    try:
        async with sm() as s:
            await s.execute(RatingHistory.__table__.delete().where(RatingHistory.pool_key == "w"))
            await writing.write_history(s, "w", players, matches, hist, 5, 3)
            rows = (
                await s.execute(
                    select(
                        RatingHistory.seq,
                        RatingHistory.player_id,
                        RatingHistory.match_id,
                        RatingHistory.before,
                        RatingHistory.after,
                        RatingHistory.gen,
                    )
                    .where(RatingHistory.pool_key == "w")
                    .order_by(RatingHistory.seq)
                )
            ).all()
            await s.rollback()
    finally:
        await engine.dispose()
    expected = [
        (5 + i, players[hist.player[i]], matches[hist.game[i]], hist.before[i], hist.after[i], 3)
        for i in range(len(hist))
    ]
    assert [tuple(r) for r in rows] == expected


def test_player_order_is_by_player_id_then_rating_order() -> None:
    players = ["b", "a", "c"]
    hist = core.History()
    for p in (0, 1, 0, 2, 1):
        hist.player.append(p)
    assert writing.player_order(players, hist).tolist() == [1, 4, 0, 2, 3]
    assert writing.player_order(players, core.History()).tolist() == []


async def test_a_reader_stopping_early_leaves_the_connection_usable(
    pg_sessionmaker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows come through a cursor with the next chunk already asked for; a caller that stops
    (an error while rating) must find the connection free for its rollback and what follows."""
    monkeypatch.setattr(games, "CHUNK", 10)
    stmt = select(func.generate_series(1, 1000).label("n"))
    async with pg_sessionmaker() as s:
        await s.execute(select(1))  # the transaction begins, as the recompute's lock begins it
        stream = games.stream_rows(s, stmt)
        got = [r[0] async for chunk in _first(stream, 3) for r in chunk]
        await stream.aclose()
        assert got == list(range(1, 31))
        assert (await s.execute(select(func.count()).select_from(RatingHistory))).scalar_one() == 0
        everything = [r[0] async for chunk in games.stream_rows(s, stmt) for r in chunk]
        assert everything == list(range(1, 1001))


async def _first(stream: Any, n: int) -> Any:
    for _ in range(n):
        yield await anext(stream)


async def test_statements_between_fetches_run_while_the_cursor_is_open(
    pg_sessionmaker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recompute's deletes run on the connection between the cursor's fetches: each before the
    chunk after the one in hand, none lost, the rows all read in order; what the read leaves of
    them stays for the caller."""
    monkeypatch.setattr(games, "CHUNK", 10)
    stmt = select(func.generate_series(1, 55).label("n"))
    log: list[Any] = []
    async with pg_sessionmaker() as s:
        await s.execute(select(1))
        apg = await asyncpg_connection(s)

        def statement(k: int) -> Any:
            async def run() -> None:
                log.append(("ran", k, await apg.fetchval("SELECT $1::int", k)))

            return run

        between = deque(statement(k) for k in range(9))
        got = []
        async for chunk in games.stream_rows(s, stmt, between):
            log.append(("chunk", chunk[0][0]))
            got += [r[0] for r in chunk]
        assert got == list(range(1, 56))
        # the first chunk comes first; then each statement, once, before the fetch of a further one
        assert log[0] == ("chunk", 1)
        ran = [e for e in log if e[0] == "ran"]
        assert ran == [("ran", k, k) for k in range(len(ran))]
        for k in range(1, 6):
            assert log.index(("ran", k - 1, k - 1)) < log.index(("chunk", 10 * k + 1))
        assert len(ran) + len(between) == 9 and len(between) >= 3  # six fetches after the first


async def test_a_pools_deletes_in_parts_take_its_rows_and_no_others(pg_sessionmaker: Any) -> None:
    """The deletes by ranges of player ids cover every id (players with history but no rating too)
    and touch no other pool's rows."""
    now = datetime.now(UTC)
    players = _ids(40, "one", 7)
    matches = _ids(30, "one", 8)
    async with pg_sessionmaker() as s:
        s.add_all([Player(id=p, name=f"P{i}") for i, p in enumerate(players)])
        s.add_all(
            [RatingPool(key=k, game_key="generic", settings={}, version=0, history_gen=4) for k in "do"]
        )
        await s.flush()
        # pool d: ratings for the first 25 players only, history for all; pool o: both for all
        await bulk_insert(
            s,
            Rating,
            writing.RATING_COLS,
            [("d", p, 1500.0, 1, None, now) for p in players[:25]]
            + [("o", p, 1500.0, 1, None, now) for p in players],
        )
        await writing.write_history(s, "d", players, matches, _history(40, 30, 300, 1), 0, 4)
        await writing.write_history(s, "o", players, matches, _history(40, 30, 200, 2), 0, 4)
        spans: list[tuple[float, float]] = []
        parts = await writing.pool_deletes(s, "d", 4, 6, spans)
        count = len(parts)
        assert count >= 6  # several ranges, then the ratings
        while parts:
            await parts.popleft()()
        assert len(spans) == count and all(a <= b for a, b in spans)

        async def rows(model: Any, pool: str) -> int:
            stmt = select(func.count()).select_from(model).where(model.pool_key == pool)
            return int((await s.execute(stmt)).scalar_one())

        assert [await rows(RatingHistory, "d"), await rows(Rating, "d")] == [0, 0]
        assert [await rows(RatingHistory, "o"), await rows(Rating, "o")] == [200, 40]
        await s.rollback()
