"""Per-character pools rated together (battlebooks.md "World rankings", the ruling on per-hero pools;
the rule is core ``rate_characters``).

In a game of per-character pools each seat is rated in the pool of the character it played and
counts for the others at its rating in the pool of *that* character. So the pools of one base (a
family: ``battlebooks:Elf``, ``battlebooks:Orc``, …) depend on one another game by game, and are
rated together: any change to one of them is a recompute of the family, in one transaction holding
every family pool's row lock (taken in key order, so two such recomputes never deadlock); each pool
of the family announces its change (``ratings.updated``).

Rulings where the spec is silent:
* A family is the character pools (``RatingPool.character`` set) whose key is the base, a colon and
  the character; its games are the confirmed matches of the events rating by character into that
  base, in the pools' rating order (``games.games_stmt``), outside ``rated: false`` stages.
* The incremental update of a character pool is this recompute (as for ``period: "event"``): the
  families are small (one event's heroes), and a game rated out of order in one pool would be
  counted wrongly in the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.core.vocabulary import RatingChange
from app.db.base import utcnow
from app.db.bulk import bulk_insert
from app.db.models import Rating, RatingHistory, RatingPool
from app.services import outbox
from app.services.ratings.games import GameRow, games_stmt, stream_rows
from app.services.ratings.pools import Sources, lock_pool, pool_sources
from app.services.ratings.writing import RATING_COLS, write_history


def family_base(row: RatingPool) -> str | None:
    """The base of a character pool (``battlebooks`` of ``battlebooks:Elf``), None for another pool."""
    c = row.character
    if c and row.key.endswith(":" + c) and len(row.key) > len(c) + 1:
        return row.key[: -len(c) - 1]
    return None


def recompute_key(row: RatingPool) -> str:
    """The de-duplication key of a pool's recompute: one per family for character pools."""
    base = family_base(row)
    return f"ratings:recompute:{row.key}" if base is None else f"ratings:recompute-family:{base}"


async def family_pools(session: AsyncSession, base: str) -> list[str]:
    rows = (await session.execute(select(RatingPool).where(RatingPool.character.is_not(None)))).scalars()
    return sorted(r.key for r in rows if family_base(r) == base)


def _games(rows: Sequence[Sequence[Any]]) -> list[core.CharacterGame]:
    games = []
    for match_id, group in groupby(rows, lambda r: r[GameRow._fields.index("match_id")]):
        seats = [GameRow(*r) for r in group]
        places = tuple(core.rated_places([s.place for s in seats], [s.violation for s in seats]))
        games.append(
            core.CharacterGame(
                match_id,
                tuple(s.player_id for s in seats),
                tuple(s.character or None for s in seats),
                places,
                seats[0].outcome,
                seats[0].event_id,
            )
        )
    return games


async def recompute_family(session: AsyncSession, pool: str, base: str) -> dict[str, Any]:
    """Rate every game of the family of ``pool`` again from the starting ratings and write every
    family pool; one transaction, not committed. Answers the asked pool's games and players."""
    keys = await family_pools(session, base)
    rows: dict[str, RatingPool] = {}
    for key in keys:  # in key order
        locked = await lock_pool(session, key)
        if locked is not None and locked.character:
            rows[locked.character] = locked
    configs = {c: core.pool_config(r.settings) for c, r in rows.items()}
    starts: dict[str, dict[str, float]] = {c: {} for c in rows}
    for key, pid, start in await session.execute(
        select(Rating.pool_key, Rating.player_id, Rating.start_rating).where(
            Rating.pool_key.in_(keys), Rating.start_rating.is_not(None)
        )
    ):
        starts.setdefault(key[len(base) + 1 :], {})[pid] = float(start or 0.0)
    found = await pool_sources(session, pool)
    sources = Sources([], found.by_character, None, found.unrated_stages)
    seats: list[Sequence[Any]] = []
    if sources.event_ids:
        async for chunk in stream_rows(session, games_stmt(sources, ordered_at=False)):
            seats.extend(chunk)
    run = core.rate_characters(_games(seats), configs, starts)
    gen = 1 + int((await session.execute(select(func.max(RatingPool.history_gen)))).scalar() or 0)
    now = utcnow()
    for c, row in rows.items():
        cp = run.pools.get(c) or core.CharacterPool(configs[c])
        await session.execute(delete(RatingHistory).where(RatingHistory.pool_key == row.key))
        await session.execute(delete(Rating).where(Rating.pool_key == row.key))
        own = starts[c]
        rating_rows = [
            (row.key, pid, cp.state.ratings[i], cp.state.games[i], own.get(pid), now)
            for i, pid in enumerate(cp.players)
            if cp.state.games[i] > 0 or pid in own
        ] + [(row.key, pid, r, 0, r, now) for pid, r in own.items() if pid not in cp.index]
        await bulk_insert(session, Rating, RATING_COLS, rating_rows)
        await write_history(session, row.key, cp.players, run.match_ids, cp.history, 0, gen)
        row.history_gen = gen
        if len(cp.history):
            row.last_seq = len(cp.history) - 1
            row.last_match_id = run.match_ids[cp.history.game[-1]]
        else:
            row.last_seq = None
            row.last_match_id = None
    await session.flush()

    def games_of(c: str) -> int:  # the games a pool of the family rated
        rated = run.pools.get(c)
        return len(set(rated.history.game)) if rated is not None else 0

    for c, row in rows.items():  # every pool of the family, in key order (their locks' order)
        await outbox.ratings_updated(session, row.key, RatingChange.RECOMPUTED, games_of(c))
    character = pool[len(base) + 1 :]
    asked = run.pools.get(character)
    return {
        "games": games_of(character),
        "players": sum(1 for g in asked.state.games if g > 0) if asked else 0,
    }
