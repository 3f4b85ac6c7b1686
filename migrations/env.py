"""Alembic environment: async engine, URL from the settings (or from the caller's config)."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from app.db import models  # noqa: F401  (registers every table)
from app.db.base import Base
from app.db.session import make_engine
from app.settings import get_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    return config.attributes.get("database_url") or get_settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=_url().startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    if connection.dialect.name != "sqlite":
        with context.begin_transaction():
            context.run_migrations()
        return
    # A batch migration rebuilds a SQLite table (copy, drop, rename); with foreign keys on, dropping
    # the old table would delete the rows referring to it (ON DELETE CASCADE). They are off for the
    # migration — a pragma that only takes effect outside a transaction, so on the driver's own
    # connection before it begins — and, when a migration ran, every reference is checked before
    # it commits (a scan of every table: not at each start of a database already at its head).
    _sqlite_pragma(connection, "PRAGMA foreign_keys=OFF")
    try:
        with context.begin_transaction():
            before = context.get_context().get_current_revision()
            context.run_migrations()
            if context.get_context().get_current_revision() != before:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"the migration left rows referring to nothing: {broken[:10]}")
    finally:
        _sqlite_pragma(connection, "PRAGMA foreign_keys=ON")


def _sqlite_pragma(connection: Connection, pragma: str) -> None:
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(pragma)
    finally:
        cursor.close()


async def run_migrations_online() -> None:
    engine = make_engine(_url())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(run_migrations_online())
