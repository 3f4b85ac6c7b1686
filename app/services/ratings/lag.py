"""Each rating pool's lag behind its confirmed matches, for ``GET /metrics`` (docs/operations.md):
what the ratings jobs still owe it, counted in SQL, one aggregate per pool."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.core.vocabulary import MatchStatus, Outcome
from app.db.base import utcnow
from app.db.models import Match, RatingPool, Round, Seat, Stage
from app.observability.metrics import PoolLag
from app.services.ratings.games import order_col
from app.services.ratings.pools import rated_events


async def pool_lag(session: AsyncSession, now: datetime | None = None) -> list[PoolLag]:
    """Each pool's confirmed matches that rate into it and sort after its high-water mark (all of
    them before its first job), with the age of the oldest: what the ratings jobs still owe it.
    Counted in SQL, one aggregate per pool: byes, voids and (unless the pool rates them) forfeits do
    not count, nor do the matches of a ``rated: false`` stage or, in a character pool, a match where
    nobody played that character."""
    now = now or utcnow()
    rated = await rated_events(session)
    pools = (
        await session.execute(select(RatingPool.key, RatingPool.settings, RatingPool.last_match_id))
    ).all()
    if not pools:
        return []
    ids = [eid for eid, _ in rated]
    unrated_by_event: dict[str, list[str]] = {}
    if ids:
        for sid, eid, st in await session.execute(
            select(Stage.id, Stage.event_id, Stage.settings).where(Stage.event_id.in_(ids))
        ):
            if (st or {}).get("rated") is False:
                unrated_by_event.setdefault(eid, []).append(sid)
    out: list[PoolLag] = []
    for key, settings, last_match_id in pools:
        overall = [eid for eid, plan in rated if plan.overall == key]
        by_char = [
            eid
            for eid, plan in rated
            if plan.overall != key
            and plan.character_base is not None
            and key.startswith(plan.character_base + ":")
        ]
        if not overall and not by_char:
            out.append(PoolLag(key, 0, 0.0))
            continue
        never: set[str] = set(core.NEVER_RATED)
        if not core.pool_config(settings).rate_forfeits:
            never.add(Outcome.FORFEIT)
        where: list[Any] = [
            Match.status == MatchStatus.CONFIRMED,
            or_(Match.outcome.is_(None), Match.outcome.not_in(never)),
        ]
        feeds: list[Any] = []
        if overall:
            feeds.append(Match.event_id.in_(overall))
        if by_char:
            character = key.split(":", 1)[1]
            played = exists().where(Seat.match_id == Match.id, Seat.character == character)
            feeds.append(and_(Match.event_id.in_(by_char), played))
        where.append(or_(*feeds))
        unrated = [sid for eid in overall + by_char for sid in unrated_by_event.get(eid, ())]
        if unrated:
            where.append(Match.round_id.not_in(select(Round.id).where(Round.stage_id.in_(unrated))))
        mark = (
            (
                await session.execute(select(order_col(), Match.id).where(Match.id == last_match_id))
            ).one_or_none()
            if last_match_id is not None
            else None
        )
        if mark is not None:
            k, mid = mark
            where.append(or_(order_col() > k, and_(order_col() == k, Match.id > mid)))
        count, first = (
            await session.execute(
                select(func.count(), func.min(order_col())).select_from(Match).where(*where)
            )
        ).one()
        age = max(0.0, (now - first).total_seconds()) if count and first is not None else 0.0
        out.append(PoolLag(key, int(count), age))
    return out
