"""The reads behind the ratings routes: the pools, a pool's leaderboard and a player's ratings with
their history (api.md "Ratings": ``GET /v1/ratings``, ``GET /v1/ratings/{pool}``,
``GET /v1/players/{id}/ratings``; paging by ``limit`` and ``cursor`` as api.md "Paging" says).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.core.errors import InvalidInput, NotFound, Problem
from app.db.models import Match, Player, Rating, RatingHistory, RatingPool
from app.services.ratings.pools import current_history, get_pool


@dataclass(frozen=True)
class BoardRow:
    rank: int
    player_id: str
    name: str
    rating: float
    games: int


@dataclass(frozen=True)
class PoolRow:
    key: str
    game: str | None
    character: str | None
    players: int
    games: int
    updated_at: datetime | None


async def pools(session: AsyncSession, limit: int, after: str | None) -> tuple[list[PoolRow], str | None]:
    """The rating pools by key (after the key ``after``), each with its players, its rated games
    (distinct matches of its history) and when a rating of it last changed."""
    stmt = select(RatingPool.key, RatingPool.game_key, RatingPool.character).order_by(RatingPool.key)
    if after is not None:
        stmt = stmt.where(RatingPool.key > after)
    keys = (await session.execute(stmt.limit(limit + 1))).all()
    page = keys[:limit]
    wanted = [k.key for k in page]
    counts = {
        key: (int(players), updated)
        for key, players, updated in await session.execute(
            select(Rating.pool_key, func.count(), func.max(Rating.updated_at))
            .where(Rating.pool_key.in_(wanted))
            .group_by(Rating.pool_key)
        )
    }
    games = {
        key: int(n)
        for key, n in await session.execute(
            select(RatingHistory.pool_key, func.count(func.distinct(RatingHistory.match_id)))
            .join(RatingPool, current_history())
            .where(RatingHistory.pool_key.in_(wanted))
            .group_by(RatingHistory.pool_key)
        )
    }
    rows = []
    for k in page:
        players, updated = counts.get(k.key, (0, None))
        rows.append(PoolRow(k.key, k.game_key, k.character, players, games.get(k.key, 0), updated))
    return rows, (page[-1].key if len(keys) > limit else None)


def _encode_cursor(rating: float, player_id: str) -> str:
    return base64.urlsafe_b64encode(f"{rating.hex()}|{player_id}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        rating, player_id = raw.split("|", 1)
        return float.fromhex(rating), player_id
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("invalid cursor", [Problem(("query", "cursor"), "invalid cursor")]) from exc


async def leaderboard(
    session: AsyncSession, pool: str, limit: int, cursor: str | None, q: str | None = None
) -> tuple[list[BoardRow], str | None]:
    """The pool's players by rating (highest first, then player id); equal ratings share a rank
    (competition ranking: 1, 2, 2, 4). ``q``: only the players whose name contains it
    (case-insensitive), each keeping its rank in the whole pool."""
    await get_pool(session, pool)
    if q:
        return await _found(session, pool, limit, cursor, q)
    stmt = (
        select(Rating.player_id, Player.name, Rating.rating, Rating.games)
        .join(Player, Player.id == Rating.player_id)
        .where(Rating.pool_key == pool)
    )
    before = 0
    if cursor:
        cr, cpid = _decode_cursor(cursor)
        after = or_(Rating.rating < cr, (Rating.rating == cr) & (Rating.player_id > cpid))
        stmt = stmt.where(after)
        before = int(
            (
                await session.execute(
                    select(func.count()).select_from(Rating).where(Rating.pool_key == pool, ~after)
                )
            ).scalar_one()
        )
    rows = (
        await session.execute(stmt.order_by(Rating.rating.desc(), Rating.player_id).limit(limit + 1))
    ).all()
    out: list[BoardRow] = []
    for i, (pid, name, rating, games) in enumerate(rows[:limit]):
        if i > 0 and rating == out[-1].rating:
            rank = out[-1].rank
        elif i == 0 and before:
            higher = (
                await session.execute(
                    select(func.count())
                    .select_from(Rating)
                    .where(Rating.pool_key == pool, Rating.rating > rating)
                )
            ).scalar_one()
            rank = int(higher) + 1
        else:
            rank = before + i + 1
        out.append(BoardRow(rank, pid, name, float(rating), int(games)))
    nxt = _encode_cursor(out[-1].rating, out[-1].player_id) if len(rows) > limit else None
    return out, nxt


async def _found(
    session: AsyncSession, pool: str, limit: int, cursor: str | None, q: str
) -> tuple[list[BoardRow], str | None]:
    """The leaderboard's rows whose name contains ``q``, in its order, each with its rank in the
    whole pool (one more than the ratings above it)."""
    higher = aliased(Rating)
    rank = (
        select(func.count())
        .select_from(higher)
        .where(higher.pool_key == pool, higher.rating > Rating.rating)
        .scalar_subquery()
    )
    stmt = (
        select(Rating.player_id, Player.name, Rating.rating, Rating.games, rank)
        .join(Player, Player.id == Rating.player_id)
        .where(Rating.pool_key == pool, Player.name.ilike(f"%{q}%"))
    )
    if cursor:
        cr, cpid = _decode_cursor(cursor)
        stmt = stmt.where(or_(Rating.rating < cr, (Rating.rating == cr) & (Rating.player_id > cpid)))
    rows = (
        await session.execute(stmt.order_by(Rating.rating.desc(), Rating.player_id).limit(limit + 1))
    ).all()
    out = [BoardRow(int(n) + 1, pid, name, float(r), int(g)) for pid, name, r, g, n in rows[:limit]]
    nxt = _encode_cursor(out[-1].rating, out[-1].player_id) if len(rows) > limit else None
    return out, nxt


@dataclass(frozen=True)
class HistoryStep:
    match_id: str | None
    before: float
    after: float
    at: datetime | None  # when the match was reported


@dataclass(frozen=True)
class PlayerPoolRating:
    pool: str
    rating: float
    games: int
    start_rating: float | None
    history: list[HistoryStep]


async def player_ratings(
    session: AsyncSession, player_id: str, since: datetime | None = None
) -> list[PlayerPoolRating]:
    """The player's rating in every pool, with its history in rating order (``since``: only the
    games reported at or after it)."""
    if await session.get(Player, player_id) is None:
        raise NotFound(f"player {player_id} not found")
    ratings = (
        (await session.execute(select(Rating).where(Rating.player_id == player_id).order_by(Rating.pool_key)))
        .scalars()
        .all()
    )
    stmt = (
        select(
            RatingHistory.pool_key,
            RatingHistory.match_id,
            RatingHistory.before,
            RatingHistory.after,
            Match.reported_at,
        )
        .join(RatingPool, current_history())
        .outerjoin(Match, Match.id == RatingHistory.match_id)
        .where(RatingHistory.player_id == player_id)
        .order_by(RatingHistory.pool_key, RatingHistory.seq)
    )
    if since is not None:
        stmt = stmt.where(Match.reported_at >= since)
    hist: dict[str, list[HistoryStep]] = {}
    for pool, mid, bf, af, at in await session.execute(stmt):
        hist.setdefault(pool, []).append(HistoryStep(mid, bf, af, at))
    return [
        PlayerPoolRating(r.pool_key, r.rating, r.games, r.start_rating, hist.get(r.pool_key, []))
        for r in ratings
    ]
