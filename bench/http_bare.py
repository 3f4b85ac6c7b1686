"""The baseline of the HTTP benchmark: a bare FastAPI app on the same stack as Arbiter's (uvicorn, the
same engine and session factory, the same database), with one single-query read and one single-row
update; and the floor of a result: the statements a reported result writes at their fewest, hand-written
(``POST /bare/result/{row}``: the caller's token looked up; the match and its seats read and locked,
its event held; the match and both seats updated; a history row; the event marked; two outbox rows;
one commit). Served as ``uvicorn bench.http_bare:create_app --factory`` with ``DATABASE_URL`` set.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Header
from sqlalchemy import inspect, text

from app.db.session import make_engine, make_sessionmaker, read_only
from app.settings import normalize_database_url

ROWS = 1000
TOKEN = "bare-organizer"
_TABLES = {
    "bench_events": "id INTEGER PRIMARY KEY, token_hash VARCHAR(64) NOT NULL UNIQUE, mark VARCHAR(32) NOT NULL",
    "bench_matches": "id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES bench_events (id), "
    "status VARCHAR(16) NOT NULL, outcome VARCHAR(16), version INTEGER NOT NULL",
    "bench_seats": "match_id INTEGER NOT NULL REFERENCES bench_matches (id), seat INTEGER NOT NULL, "
    "entry_id INTEGER NOT NULL, place INTEGER, PRIMARY KEY (match_id, seat)",
    "bench_history": "id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES bench_matches (id), "
    "version INTEGER NOT NULL, payload TEXT NOT NULL",
    "bench_outbox": "id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES bench_events (id), "
    "type VARCHAR(32) NOT NULL, data TEXT NOT NULL",
}


def create_app() -> FastAPI:
    engine = make_engine(normalize_database_url(os.environ["DATABASE_URL"]))
    sessions = make_sessionmaker(engine)
    postgres = engine.dialect.name == "postgresql"

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with engine.begin() as conn:
            # the first of the server's processes builds the tables; the others find them built
            if postgres:
                await conn.execute(text("SELECT pg_advisory_xact_lock(7321)"))
            if not await conn.run_sync(lambda sync: inspect(sync).has_table("bench_outbox")):
                await conn.execute(
                    text("CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
                )
                await conn.execute(
                    text("INSERT INTO bench_rows (id, n) VALUES (:id, 0)"), [{"id": i} for i in range(ROWS)]
                )
                await _result_tables(conn)
        yield
        await engine.dispose()

    app = FastAPI(lifespan=lifespan)

    @app.get("/bare/read/{row}")
    async def read(row: int) -> dict[str, int]:
        async with sessions() as session:
            await read_only(session)
            n = (await session.execute(text("SELECT n FROM bench_rows WHERE id = :id"), {"id": row})).scalar()
        return {"id": row, "n": int(n or 0)}

    @app.post("/bare/write/{row}")
    async def write(row: int) -> dict[str, int]:
        async with sessions() as session:
            await session.execute(text("UPDATE bench_rows SET n = n + 1 WHERE id = :id"), {"id": row})
            await session.commit()
        return {"id": row}

    @app.post("/bare/result/{row}")
    async def result(
        row: int, body: dict[str, Any], authorization: str = Header(), unordered: bool = False
    ) -> dict[str, Any]:
        """A result's statements, the fewest: one round trip each, then the commit. ``unordered``:
        without the event's mark, so that results of one event are not serialized at all — what
        giving up an event's commit-ordered outbox (``Last-Event-ID``) and standings mark would
        allow; Arbiter keeps both."""
        digest = hashlib.sha256(authorization.removeprefix("Bearer ").encode()).hexdigest()
        async with sessions() as session:
            event = (
                await session.execute(
                    text("SELECT id FROM bench_events WHERE token_hash = :h"), {"h": digest}
                )
            ).scalar_one()
            # the match locked, its event held against changes of its structure
            lock = " FOR UPDATE OF m FOR KEY SHARE OF e" if postgres else ""
            seats = (
                await session.execute(
                    text(
                        "SELECT m.event_id, m.version, s.seat, s.entry_id FROM bench_matches m "
                        "JOIN bench_events e ON e.id = m.event_id "
                        f"JOIN bench_seats s ON s.match_id = m.id WHERE m.id = :id{lock}"
                    ),
                    {"id": row},
                )
            ).all()
            assert seats and seats[0].event_id == event
            places = {int(s["entry_id"]): int(s["place"]) for s in body["seats"]}
            await session.execute(
                text("UPDATE bench_matches SET status = 'confirmed', version = version + 1 WHERE id = :id"),
                {"id": row},
            )
            await session.execute(
                text("UPDATE bench_seats SET place = :place WHERE match_id = :id AND seat = :seat"),
                [{"id": row, "seat": s.seat, "place": places.get(s.entry_id)} for s in seats],
            )
            payload = json.dumps(body)
            await session.execute(
                text("INSERT INTO bench_history (match_id, version, payload) VALUES (:id, :v, :p)"),
                {"id": row, "v": seats[0].version + 1, "p": payload},
            )
            rows = [("match.confirmed", payload), ("standings.changed", "{}")]
            if unordered:
                await session.execute(
                    text("INSERT INTO bench_outbox (event_id, type, data) VALUES (:e, :t, :d)"),
                    [{"e": event, "t": t, "d": d} for t, d in rows],
                )
            elif postgres:
                # the event marked (its row locked), its wake-up sent and its rows numbered after the
                # lock: one statement
                await session.execute(
                    text(
                        "WITH marked AS (UPDATE bench_events SET mark = :mark WHERE id = :e "
                        "RETURNING id, pg_notify('bench', '1')) "
                        "INSERT INTO bench_outbox (event_id, type, data) "
                        "SELECT marked.id, :t0, :d0 FROM marked UNION ALL SELECT marked.id, :t1, :d1 FROM marked"
                    ),
                    {"e": event, "mark": uuid.uuid4().hex, "t0": rows[0][0], "d0": rows[0][1]}
                    | {"t1": rows[1][0], "d1": rows[1][1]},
                )
            else:
                await session.execute(
                    text("UPDATE bench_events SET mark = :mark WHERE id = :id"),
                    {"id": event, "mark": uuid.uuid4().hex},
                )
                await session.execute(
                    text("INSERT INTO bench_outbox (event_id, type, data) VALUES (:e, :t, :d)"),
                    [{"e": event, "t": t, "d": d} for t, d in rows],
                )
            await session.commit()
        return {"id": row, "version": seats[0].version + 1, "seats": [dict(s._mapping) for s in seats]}

    return app


async def _result_tables(conn: Any) -> None:
    """One event of ``ROWS`` two-seat matches, for ``/bare/result``; the history's and outbox's ids
    drawn as Arbiter's are (a sequence on Postgres, the rowid on SQLite)."""
    postgres = conn.dialect.name == "postgresql"
    for name, columns in _TABLES.items():
        if postgres and name in ("bench_history", "bench_outbox"):
            columns = columns.replace("id INTEGER PRIMARY KEY", "id SERIAL PRIMARY KEY")
        await conn.execute(text(f"CREATE TABLE {name} ({columns})"))
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    await conn.execute(text("INSERT INTO bench_events VALUES (1, :h, 'm')"), {"h": digest})
    await conn.execute(
        text("INSERT INTO bench_matches VALUES (:id, 1, 'pending', NULL, 1)"),
        [{"id": i} for i in range(ROWS)],
    )
    await conn.execute(
        text("INSERT INTO bench_seats VALUES (:id, :seat, :entry, NULL)"),
        [{"id": i, "seat": k, "entry": 2 * i + k} for i in range(ROWS) for k in (0, 1)],
    )
