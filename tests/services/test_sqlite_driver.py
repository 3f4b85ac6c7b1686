"""The SQLite engine's cursors (app/db/sqlite_driver.py): each statement in one turn of the driver's
thread, answering what SQLAlchemy reads of a cursor as the driver's own cursors do."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import exc, text

from app.db.session import make_engine
from app.db.sqlite_driver import OneTurnConnection


async def test_statements_answer_rows_counts_ids_and_errors_as_the_driver_does(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/one-turn.db")
    try:
        async with engine.begin() as conn:
            raw = await conn.get_raw_connection()
            assert isinstance(raw.dbapi_connection, OneTurnConnection)
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL UNIQUE)"))
            inserted = await conn.execute(text("INSERT INTO t (n) VALUES (:n)"), {"n": 10})
            assert inserted.lastrowid == 1
            many = await conn.execute(text("INSERT INTO t (n) VALUES (:n)"), [{"n": 20}, {"n": 30}])
            assert many.rowcount == 2
            updated = await conn.execute(text("UPDATE t SET n = n + 1 WHERE n >= :n"), {"n": 20})
            assert updated.rowcount == 2
            returned = await conn.execute(text("UPDATE t SET n = n + 1 WHERE id = 1 RETURNING id, n"))
            assert [tuple(r) for r in returned] == [(1, 11)]
            rows = await conn.execute(text("SELECT id, n FROM t ORDER BY id"))
            assert list(rows.keys()) == ["id", "n"]
            assert [tuple(r) for r in rows] == [(1, 11), (2, 21), (3, 31)]
            assert (await conn.execute(text("SELECT n FROM t WHERE id = 99"))).first() is None
            some = await conn.execute(text("SELECT n FROM t ORDER BY id"))
            assert [r.n for r in some.fetchmany()] == [11]  # the driver's arraysize, 1
            assert [r.n for r in some.fetchmany(5)] == [21, 31]
            streamed = await conn.stream(text("SELECT n FROM t ORDER BY id"))  # a server-side cursor
            assert [r.n async for r in streamed] == [11, 21, 31]
            with pytest.raises(exc.IntegrityError):
                await conn.execute(text("INSERT INTO t (n) VALUES (11)"))
        async with engine.connect() as conn:  # the failed statement changed nothing, the rest committed
            assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == 3
    finally:
        await engine.dispose()
