"""Bulk writing of ratings and rating history: binary COPY on Postgres (asyncpg), batched
``executemany`` inserts elsewhere (SQLite). Serves the rows api.md "Resources" reads back
(``GET /v1/players/{id}/ratings`` history).

``rating_history`` is derived data without foreign keys (migration 0003). Ruling where the spec is
silent: history seq numbers count the pool's history rows from 0 in rating order, so the incremental
path and a recompute write identical rows.
"""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator, Iterable
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.db.models import RatingHistory

BATCH = 5_000  # rows per executemany off Postgres
COPY_ROWS = 20_000  # history rows packed per chunk of COPY data

HISTORY_COLS = ["pool_key", "player_id", "match_id", "seq", "before", "after"]


async def write_history(
    session: AsyncSession,
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    first_seq: int,
) -> None:
    """Write the history rows (``players`` and ``matches`` name the history's indexes) in the order of
    the player index (player id, then seq): the index then fills page after page instead of at random
    places, which makes a large rewrite much faster."""
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    buckets: list[list[int]] = [[] for _ in players]
    for i, p in enumerate(h_player):
        buckets[p].append(i)
    order = (i for p in sorted(range(len(players)), key=players.__getitem__) for i in buckets[p])
    apg = await _asyncpg(session)
    if apg is not None:
        # COPY in binary format, each row packed here from pre-encoded parts: several times cheaper
        # than asyncpg encoding every field of a record (or than formatting text rows)
        await apg.copy_to_table(
            "rating_history",
            source=_binary_history(pool, players, matches, hist, order, first_seq),
            columns=HISTORY_COLS,
            format="binary",
        )
        return
    records = (
        (pool, players[h_player[i]], matches[h_game[i]], first_seq + i, h_before[i], h_after[i])
        for i in order
    )
    await bulk_insert(session, RatingHistory, HISTORY_COLS, records)


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TAIL = struct.Struct(">iiidid")  # seq int4, before float8, after float8, each with its length
_LEN = struct.Struct(">i")


async def _binary_history(
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    order: Iterable[int],
    first_seq: int,
) -> AsyncIterator[bytes]:
    """rating_history rows (pool_key, player_id, match_id, seq, before, after) in PostgreSQL's
    binary COPY format."""
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    count = struct.pack(">h", len(HISTORY_COLS))
    pool_b = pool.encode()
    pool_f = count + _LEN.pack(len(pool_b)) + pool_b
    player_f = [_LEN.pack(len(b)) + b for b in (p.encode() for p in players)]
    match_f = [_LEN.pack(len(b)) + b for b in (m.encode() for m in matches)]
    pack = _TAIL.pack
    parts: list[bytes] = [_COPY_HEADER]
    for i in order:
        parts += (
            pool_f,
            player_f[h_player[i]],
            match_f[h_game[i]],
            pack(4, first_seq + i, 8, h_before[i], 8, h_after[i]),
        )
        if len(parts) >= 4 * COPY_ROWS:
            yield b"".join(parts)
            parts = []
    parts.append(b"\xff\xff")  # trailer: field count -1
    yield b"".join(parts)


async def _asyncpg(session: AsyncSession) -> Any:
    """The asyncpg connection under this session's transaction, or None off Postgres."""
    if session.bind is None or session.bind.dialect.name != "postgresql":
        return None
    conn = await session.connection()
    raw = await conn.get_raw_connection()
    return raw.driver_connection


async def bulk_insert(
    session: AsyncSession, model: Any, cols: list[str], records: Iterable[tuple[Any, ...]]
) -> None:
    """Insert ``records`` (tuples in the order of ``cols``) into ``model``'s table."""
    apg = await _asyncpg(session)
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
