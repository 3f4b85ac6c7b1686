"""Bulk writing of ratings and rating history: binary COPY on Postgres (asyncpg; the history packed
a chunk at a time with numpy when its ids share one width, as UUIDs do), batched ``executemany``
inserts elsewhere (SQLite). Serves the rows api.md "Resources" reads back
(``GET /v1/players/{id}/ratings`` history).

``rating_history`` is derived data without foreign keys (migration 0003). Ruling where the spec is
silent: history seq numbers count the pool's history rows from 0 in rating order, so the incremental
path and a recompute write identical rows.
"""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.db.bulk import asyncpg_connection, bulk_insert
from app.db.models import RatingHistory

COPY_ROWS = 50_000  # history rows packed per chunk of COPY data

RATING_COLS = ["pool_key", "player_id", "rating", "games", "start_rating", "updated_at"]
HISTORY_COLS = ["pool_key", "player_id", "match_id", "seq", "before", "after", "gen"]


async def write_history(
    session: AsyncSession,
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    first_seq: int,
    gen: int,
) -> None:
    """Write the history rows (``players`` and ``matches`` name the history's indexes) of generation
    ``gen`` in the order of the index (player id, then seq): it then fills page after page instead of
    at random places, which makes a large rewrite much faster."""
    order = player_order(players, hist)
    apg = await asyncpg_connection(session)
    if apg is not None:
        # COPY in binary format, the rows packed here a chunk at a time: several times cheaper than
        # asyncpg encoding every field of a record (or than formatting text rows)
        await apg.copy_to_table(
            "rating_history",
            source=_binary_history(pool, players, matches, hist, order, first_seq, gen),
            columns=HISTORY_COLS,
            format="binary",
        )
        return
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    records = (
        (pool, players[h_player[i]], matches[h_game[i]], first_seq + i, h_before[i], h_after[i], gen)
        for i in order.tolist()
    )
    await bulk_insert(session, RatingHistory, HISTORY_COLS, records)


def player_order(players: list[str], hist: core.History) -> np.ndarray[Any, Any]:
    """The history's row numbers ordered by player id, then seq (a stable sort keeps rating order)."""
    rank = np.empty(len(players), dtype=np.int64)
    rank[sorted(range(len(players)), key=players.__getitem__)] = np.arange(len(players))
    return np.argsort(rank[np.frombuffer(hist.player, dtype=np.int64)], kind="stable")


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TAIL = struct.Struct(">iiididii")  # seq int4, before, after float8, gen int4, each with its length
_LEN = struct.Struct(">i")


def _fixed(values: list[str]) -> np.ndarray[Any, Any] | None:
    """``values`` UTF-8 encoded as one fixed-width byte-string array, or None when their lengths
    differ (or there are none)."""
    encoded = [v.encode() for v in values]
    if not encoded or len({len(b) for b in encoded}) != 1 or not encoded[0]:
        return None
    return np.array(encoded, dtype=f"S{len(encoded[0])}")


async def _binary_history(
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    order: np.ndarray[Any, Any],
    first_seq: int,
    gen: int,
) -> AsyncIterator[bytes]:
    """rating_history rows (``HISTORY_COLS``) in PostgreSQL's binary COPY format."""
    yield _COPY_HEADER
    player_b, match_b = _fixed(players), _fixed(matches)
    if player_b is None or match_b is None:
        async for part in _binary_history_rows(pool, players, matches, hist, order, first_seq, gen):
            yield part
    else:
        # ids of one width (the usual case: UUIDs): every row has the same layout, packed as a
        # numpy record per row, a whole chunk at once
        pool_b = pool.encode()
        layout = np.dtype(
            [
                ("fields", ">i2"),
                ("pool_len", ">i4"),
                ("pool", f"S{len(pool_b)}" if pool_b else "V0"),
                ("player_len", ">i4"),
                ("player", player_b.dtype),
                ("match_len", ">i4"),
                ("match", match_b.dtype),
                ("seq_len", ">i4"),
                ("seq", ">i4"),
                ("before_len", ">i4"),
                ("before", ">f8"),
                ("after_len", ">i4"),
                ("after", ">f8"),
                ("gen_len", ">i4"),
                ("gen", ">i4"),
            ]
        )
        h_game = np.frombuffer(hist.game, dtype=np.int64)
        h_player = np.frombuffer(hist.player, dtype=np.int64)
        h_before = np.frombuffer(hist.before, dtype=np.float64)
        h_after = np.frombuffer(hist.after, dtype=np.float64)
        for start in range(0, len(order), COPY_ROWS):
            rows = order[start : start + COPY_ROWS]
            rec = np.empty(len(rows), dtype=layout)
            rec["fields"] = len(HISTORY_COLS)
            rec["pool_len"] = len(pool_b)
            if pool_b:
                rec["pool"] = pool_b
            rec["player_len"] = player_b.itemsize
            rec["player"] = player_b[h_player[rows]]
            rec["match_len"] = match_b.itemsize
            rec["match"] = match_b[h_game[rows]]
            rec["seq_len"] = 4
            rec["seq"] = rows + first_seq
            rec["before_len"] = 8
            rec["before"] = h_before[rows]
            rec["after_len"] = 8
            rec["after"] = h_after[rows]
            rec["gen_len"] = 4
            rec["gen"] = gen
            yield rec.tobytes()
    yield b"\xff\xff"  # trailer: field count -1


async def _binary_history_rows(
    pool: str,
    players: list[str],
    matches: list[str],
    hist: core.History,
    order: np.ndarray[Any, Any],
    first_seq: int,
    gen: int,
) -> AsyncIterator[bytes]:
    """The rows of ``_binary_history`` packed one at a time (ids of differing widths)."""
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    count = struct.pack(">h", len(HISTORY_COLS))
    pool_b = pool.encode()
    pool_f = count + _LEN.pack(len(pool_b)) + pool_b
    player_f = [_LEN.pack(len(b)) + b for b in (p.encode() for p in players)]
    match_f = [_LEN.pack(len(b)) + b for b in (m.encode() for m in matches)]
    pack = _TAIL.pack
    parts: list[bytes] = []
    for i in order.tolist():
        parts += (
            pool_f,
            player_f[h_player[i]],
            match_f[h_game[i]],
            pack(4, first_seq + i, 8, h_before[i], 8, h_after[i], 4, gen),
        )
        if len(parts) >= 4 * COPY_ROWS:
            yield b"".join(parts)
            parts = []
    if parts:
        yield b"".join(parts)
