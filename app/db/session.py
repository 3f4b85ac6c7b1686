"""The async engine and session factory. One session per request or per job."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine


def make_engine(url: str, **kwargs: Any) -> AsyncEngine:
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # WAL lets readers run beside the one writer; foreign keys are off by default in SQLite.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
            # Let SQLAlchemy, not the driver, say when a transaction begins (see _begin_immediate).
            dbapi_conn.isolation_level = None

        @event.listens_for(engine.sync_engine, "begin")
        def _begin_immediate(conn: Any) -> None:
            # Every transaction takes the write lock up front. Without it two requests can both read
            # "registration" and then both try to start the event; SQLite would fail the second
            # writer's upgrade outright instead of making it wait. The embedded default serves one
            # organizer, so serializing transactions costs nothing that matters.
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_async_engine(url, **kwargs)


def make_sessionmaker(
    engine: AsyncEngine, info: dict[str, Any] | None = None
) -> async_sessionmaker[AsyncSession]:
    """Sessions on ``engine``; each starts with a copy of ``info`` (the entry points put the registry
    there: app/services/registry.py)."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False, info=info or {})


async def ping(session: AsyncSession) -> None:
    """Raise unless the database answers."""
    await session.execute(text("SELECT 1"))
