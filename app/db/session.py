"""The async engine and session factory. One session per request or per job."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from sqlalchemy import event, exc, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session

from app.core import database_url
from app.db.sqlite_driver import one_turn

# The connection option that marks a transaction as one that only reads (see ``read_only``).
READ_ONLY_OPTION = "arbiter_read_only"
# session.info key: what the transaction in progress keeps (see ``transaction_state``)
_TRANSACTION_STATE = "arbiter_transaction_state"

T = TypeVar("T")


def make_engine(url: str, **kwargs: Any) -> AsyncEngine:
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            one_turn(dbapi_conn)  # a statement in one turn of the driver's thread (app/db/sqlite_driver.py)
            # WAL lets readers run beside the one writer; foreign keys are off by default in SQLite.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            # In WAL mode NORMAL never corrupts the file; a commit is durable once the WAL is
            # checkpointed, so a power cut (not a crash of the process) may lose the last commits.
            # The fsync of every commit otherwise bounds a result's cost (docs/operations.md).
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
            # Let SQLAlchemy, not the driver, say when a transaction begins (see _begin_immediate).
            dbapi_conn.isolation_level = None

        @event.listens_for(engine.sync_engine, "begin")
        def _begin_immediate(conn: Any) -> None:
            # A transaction that may write takes the write lock up front. Without it two requests
            # can both read "registration" and then both try to start the event; SQLite would fail
            # the second writer's upgrade outright instead of making it wait. A read-only one
            # (``read_only``) begins deferred: a WAL reader, beside the one writer, never waiting.
            read_only = conn.get_execution_options().get(READ_ONLY_OPTION, False)
            conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine
    database_url.check_query(dict(make_url(url).query))
    engine = create_async_engine(url, **kwargs)

    @event.listens_for(engine.sync_engine, "do_connect")
    def _libpq_parameters(_dialect: Any, _record: Any, _cargs: Any, cparams: dict[str, Any]) -> None:
        # the URL keeps libpq's names (sslmode, connect_timeout, application_name, options): asyncpg
        # is handed them in its own form (app/core/database_url.py)
        database_url.connect_arguments(cparams)

    @event.listens_for(engine.sync_engine, "checkout")
    def _closed_by_the_server(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        # A pooled connection the server has closed (a restart, an idle timeout) is replaced before
        # it is used: the driver saw the socket close, so asking costs nothing. SQLAlchemy's
        # pool_pre_ping would ask the server instead — three round trips (BEGIN, a ping, ROLLBACK)
        # at every checkout, twice a request. A connection lost without a word fails its first
        # statement, which invalidates the pool (a 503 for that one request: app/api/problems.py).
        raw = getattr(dbapi_conn, "_connection", None)
        if raw is not None and raw.is_closed():
            raise exc.DisconnectionError("the server closed this connection")

    return engine


def make_sessionmaker(
    engine: AsyncEngine, info: dict[str, Any] | None = None
) -> async_sessionmaker[AsyncSession]:
    """Sessions on ``engine``; each starts with a copy of ``info`` (the entry points put the registry
    there: app/services/registry.py)."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False, info=info or {})


_WRITE_GATES: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def write_gate(engine: AsyncEngine) -> asyncio.Lock | None:
    """SQLite has one writer: the writing transactions of one process queue here for their turn
    (requests: app/api/deps.py; jobs that write after waiting on something else:
    ``write_turn``) instead of polling the file's lock in SQLite's busy handler. None on Postgres."""
    if engine.dialect.name != "sqlite":
        return None
    gate = _WRITE_GATES.get(engine.sync_engine)
    if gate is None:
        gate = _WRITE_GATES[engine.sync_engine] = asyncio.Lock()
    return gate


@contextlib.asynccontextmanager
async def write_turn(sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[None]:
    """Hold this process's turn for SQLite's writer (``write_gate``) around a short writing
    transaction; nothing on Postgres."""
    bind = sessionmaker.kw.get("bind")
    gate = write_gate(bind) if isinstance(bind, AsyncEngine) else None
    if gate is None:
        yield
        return
    async with gate:
        yield


async def read_only(session: AsyncSession) -> None:
    """Begin the session's transaction as one that only reads: on SQLite it takes no write lock (a
    WAL reader sees the last commit and never waits for a writer); on Postgres nothing changes.
    Called before the session's first statement (a GET request's session: app/api/deps.py)."""
    await session.connection(execution_options={READ_ONLY_OPTION: True})


async def ping(session: AsyncSession) -> None:
    """Raise unless the database answers."""
    await session.execute(text("SELECT 1"))


def transaction_state(session: AsyncSession | Session, key: str, factory: Callable[[], T]) -> T:
    """What the session's transaction in progress keeps under ``key`` (made by ``factory`` on first
    use); forgotten when its outermost transaction ends, committed or rolled back."""
    state: dict[str, Any] = session.info.setdefault(_TRANSACTION_STATE, {})
    if key not in state:
        state[key] = factory()
    value: T = state[key]
    return value


def kept_in_transaction(session: AsyncSession | Session, key: str) -> Any:
    """What ``transaction_state`` keeps under ``key``, or None (nothing made yet)."""
    return session.info.get(_TRANSACTION_STATE, {}).get(key)


@event.listens_for(Session, "after_transaction_end")
def _forget_transaction_state(session: Session, transaction: Any) -> None:
    if transaction.parent is None:  # the outermost transaction ended (after its after_commit)
        session.info.pop(_TRANSACTION_STATE, None)
