"""Writing many rows at once: binary COPY on Postgres (asyncpg, under the session's transaction),
batched ``executemany`` inserts elsewhere (SQLite, which has no COPY). Either way the rows go
straight to the table: no objects are made or tracked, no column default is filled in (a column
left out is NULL, or its server default), and a JSON column takes its text (``json_text``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

BATCH = 5_000  # rows per executemany off Postgres


def copies(session: AsyncSession) -> bool:
    """Whether ``bulk_insert`` writes by COPY on this session (on Postgres)."""
    return session.bind is not None and session.bind.dialect.name == "postgresql"


async def asyncpg_connection(session: AsyncSession) -> Any:
    """The asyncpg connection under this session's transaction, or None when it does not copy."""
    if not copies(session):
        return None
    conn = await session.connection()
    raw = await conn.get_raw_connection()
    return raw.driver_connection


def json_text(session: AsyncSession, value: Any) -> Any:
    """A JSON column's value as ``bulk_insert`` takes it: its text for COPY on Postgres (the
    connection's JSON codec passes text through), the value itself for the insert elsewhere."""
    if copies(session):
        return json.dumps(value)
    return value


async def bulk_insert(
    session: AsyncSession, model: Any, cols: list[str], records: Iterable[tuple[Any, ...]]
) -> None:
    """Insert ``records`` (tuples in the order of ``cols``) into ``model``'s table."""
    apg = await asyncpg_connection(session)
    if apg is not None:
        await apg.copy_records_to_table(model.__tablename__, records=records, columns=cols)
        return
    batch: list[dict[str, Any]] = []
    for rec in records:
        batch.append(dict(zip(cols, rec, strict=True)))
        if len(batch) >= BATCH:
            await session.execute(insert(model), batch)
            batch = []
    if batch:
        await session.execute(insert(model), batch)


def as_loaded(
    session: AsyncSession, model: Any, cols: list[str], records: Iterable[tuple[Any, ...]]
) -> list[Any]:
    """Objects of ``model`` for rows this transaction has just written (``records``, tuples in the
    order of ``cols``, every other column given as None), made persistent in the session the way a
    query's loading makes them: each object's values set as its row's, its identity put in the
    session's identity map — no constructor, no attribute events, no cascade, nothing to flush —
    rather than reading the rows back. Some three times cheaper than making them pending and
    detached, and a fraction of the query. The caller passes the values as the database would give
    them back (a JSON column's own value, not its text; an aware timestamp)."""
    sync = session.sync_session
    identity_map = sync.identity_map
    manager = model._sa_class_manager
    mapper = manager.mapper
    (pk,) = mapper.primary_key  # one-column keys only
    at = cols.index(pk.key)
    nulls = {c.key: None for c in mapper.column_attrs if c.key not in cols}
    made = []
    for rec in records:
        obj = manager.new_instance()
        obj.__dict__.update(zip(cols, rec, strict=True))
        obj.__dict__.update(nulls)
        key = (model, (rec[at],), None)
        state = obj._sa_instance_state
        state.key, state.identity_token, state.session_id = key, None, sync.hash_key
        identity_map._add_unpresent(state, key)
        made.append(obj)
    return made
