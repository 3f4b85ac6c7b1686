"""The baseline of the HTTP benchmark: a bare FastAPI app on the same stack as Arbiter's (uvicorn, the
same engine and session factory, the same database), with one single-query read and one single-row
update. Served as ``uvicorn bench.http_bare:create_app --factory`` with ``DATABASE_URL`` set.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy import text

from app.db.session import make_engine, make_sessionmaker, read_only
from app.settings import normalize_database_url

ROWS = 1000


def create_app() -> FastAPI:
    engine = make_engine(normalize_database_url(os.environ["DATABASE_URL"]))
    sessions = make_sessionmaker(engine)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with engine.begin() as conn:
            await conn.execute(text("DROP TABLE IF EXISTS bench_rows"))
            await conn.execute(text("CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
            await conn.execute(
                text("INSERT INTO bench_rows (id, n) VALUES (:id, 0)"), [{"id": i} for i in range(ROWS)]
            )
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

    return app
