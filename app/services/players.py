"""Players: one identity across events."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, NotFound
from app.db.models import Player


async def create_player(session: AsyncSession, name: str, external_id: str | None) -> Player:
    name = name.strip()
    if external_id is not None:
        taken = (
            await session.execute(select(Player.id).where(Player.external_id == external_id))
        ).scalar_one_or_none()
        if taken is not None:
            raise Conflict(f"external_id {external_id!r} already belongs to player {taken}")
    player = Player(name=name, external_id=external_id)
    session.add(player)
    await session.flush()
    return player


async def get_player(session: AsyncSession, player_id: str) -> Player:
    player = await session.get(Player, player_id)
    if player is None:
        raise NotFound(f"player {player_id} not found")
    return player


async def find_or_create_by_name(session: AsyncSession, name: str) -> Player:
    """The player with exactly this name, created when there is none (the same name at every event)."""
    name = name.strip()
    rows = (await session.execute(select(Player).where(Player.name == name).limit(2))).scalars().all()
    if len(rows) > 1:
        raise Conflict(f"several players are named {name!r}; register by player_id")
    if rows:
        return rows[0]
    return await create_player(session, name, None)


async def search_players(
    session: AsyncSession, q: str | None, limit: int, cursor: str | None
) -> tuple[list[Player], str | None]:
    """Players by name (case-insensitive substring), ordered by (name, id); the cursor is the last id."""
    stmt = select(Player)
    if q:
        stmt = stmt.where(Player.name.ilike(f"%{q}%"))
    if cursor:
        last = await session.get(Player, cursor)
        if last is not None:
            stmt = stmt.where(
                (Player.name > last.name) | ((Player.name == last.name) & (Player.id > last.id))
            )
    rows = list((await session.execute(stmt.order_by(Player.name, Player.id).limit(limit + 1))).scalars())
    nxt = rows[limit - 1].id if len(rows) > limit else None
    return rows[:limit], nxt
