"""Games: the catalog of what can be played, with seat limits and an optional adjudicator."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, InvalidInput, Problem
from app.db.models import Game


async def list_games(session: AsyncSession) -> list[Game]:
    return list((await session.execute(select(Game).order_by(Game.key))).scalars())


async def create_game(
    session: AsyncSession, key: str, name: str, min_seats: int, max_seats: int, adjudicator: str | None
) -> Game:
    if await session.get(Game, key) is not None:
        raise Conflict(f"game {key!r} already exists")
    game = Game(key=key, name=name, min_seats=min_seats, max_seats=max_seats, adjudicator=adjudicator)
    session.add(game)
    await session.flush()
    return game


async def get_game(session: AsyncSession, key: str) -> Game:
    game = await session.get(Game, key)
    if game is None:
        known = ", ".join(g.key for g in await list_games(session))
        raise InvalidInput(
            f"unknown game {key!r}", [Problem(("game",), f"unknown game {key!r}; known: {known}")]
        )
    return game
