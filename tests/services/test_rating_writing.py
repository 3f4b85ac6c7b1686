"""The rating history writer on its own: the rows it writes read back as the history says, on
Postgres (binary COPY: packed a chunk at a time when the ids share one width, row by row when they
do not) and on SQLite (batched inserts)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from app.core import ratings as core
from app.db.models import RatingHistory
from app.db.session import make_engine, make_sessionmaker
from app.services.ratings import writing


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
