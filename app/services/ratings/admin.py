"""What the admin sets: a pool's settings and a player's starting rating in a pool (api.md
"Resources", ``/v1/ratings/{pool}`` and ``/v1/players/{id}/ratings``; the settings document is
described in app/core/ratings.py).

Ruling where the spec is silent: changing a pool's settings, or the starting rating of a player who
has games in the pool, queues a recompute of that pool (which announces the change). A starting
rating taken at once is announced here (``ratings.updated``, ``start_rating``), with the pool's row
locked before the rating's, in the rating jobs' order.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.core.errors import InvalidInput, NotFound, Problem
from app.core.vocabulary import RatingChange
from app.db.models import Job, Player, Rating, RatingPool
from app.services import outbox
from app.services.ratings.jobs import enqueue_recompute
from app.services.ratings.pools import get_pool


async def set_start_rating(
    session: AsyncSession, player_id: str, pool: str, rating: float
) -> tuple[Rating, Job | None]:
    """Give a player a starting rating in a pool (an imported rating). A player without games takes
    it at once; one with games gets it through the recompute queued here."""
    # the pool's row first (``FOR NO KEY UPDATE``), then the rating's: the jobs' order
    row = await session.get(RatingPool, pool, with_for_update={"key_share": True})
    if row is None:
        raise NotFound(f"rating pool {pool!r} not found")
    cfg = core.pool_config(row.settings)
    if not cfg.min_rating <= rating <= cfg.max_rating:
        raise InvalidInput(
            "rating out of range",
            [Problem(("body", "rating"), f"must lie within [{cfg.min_rating}, {cfg.max_rating}]")],
        )
    if await session.get(Player, player_id) is None:
        raise NotFound(f"player {player_id} not found")
    current = (
        await session.execute(
            select(Rating).where(Rating.pool_key == pool, Rating.player_id == player_id).with_for_update()
        )
    ).scalar_one_or_none()
    job: Job | None = None
    if current is None:
        current = Rating(pool_key=pool, player_id=player_id, rating=rating, games=0, start_rating=rating)
        session.add(current)
    else:
        current.start_rating = rating
        if current.games == 0:
            current.rating = rating
        else:
            (job,) = await enqueue_recompute(session, [pool])
    await session.flush()
    if job is None:
        await outbox.ratings_updated(session, pool, RatingChange.START_RATING, 0)
    return current, job


async def pool_settings(session: AsyncSession, pool: str) -> dict[str, Any]:
    row = await get_pool(session, pool)
    return core.config_settings(core.pool_config(row.settings))


async def put_pool_settings(
    session: AsyncSession, pool: str, settings: dict[str, Any]
) -> tuple[dict[str, Any], Job | None]:
    """Replace a pool's settings (validated; 422 lists every problem). Creates the pool when it does
    not exist yet (configuring a pool before its first event); otherwise queues a recompute."""
    problems = core.settings_problems(settings)
    if problems:
        raise InvalidInput(
            f"{len(problems)} problem(s) with the pool settings",
            [Problem(("body", *loc), msg) for loc, msg in problems],
        )
    row = await session.get(RatingPool, pool, with_for_update=True)
    job: Job | None = None
    if row is None:
        session.add(RatingPool(key=pool, settings=dict(settings), version=0))
    else:
        row.settings = dict(settings)
        (job,) = await enqueue_recompute(session, [pool])
    await session.flush()
    return core.config_settings(core.pool_config(settings)), job
