"""The rating recompute's reading and writing on their own: the history rows it writes read back as
the history says, on Postgres (binary COPY: packed a chunk at a time when the ids share one width,
row by row when they do not) and on SQLite (batched inserts); the streamed read lets go of its
connection when its caller stops early."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import func, select

from app.core import ratings as core
from app.db.models import RatingHistory
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
