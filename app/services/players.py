"""Players: one identity across events."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, InvalidInput, NotFound, Problem
from app.core.identity import clean_name, name_key
from app.db.models import Player


async def create_player(session: AsyncSession, name: str, external_id: str | None) -> Player:
    name = clean_name(name)
    if external_id is not None:
        taken = (
            await session.execute(select(Player.id).where(Player.external_id == external_id))
        ).scalar_one_or_none()
        if taken is not None:
            raise Conflict(f"external_id {external_id!r} already belongs to player {taken}")
    player = Player(name=name, name_key=name_key(name), external_id=external_id)
    session.add(player)
    await session.flush()
    return player


async def get_player(session: AsyncSession, player_id: str) -> Player:
    player = await session.get(Player, player_id)
    if player is None:
        raise NotFound(f"player {player_id} not found")
    return player


@dataclass(frozen=True)
class Identity:
    """Who a registration is (app/core/identity.py): an existing ``player`` and how it was found
    (``player_id``, ``external_id``, ``name``), or ``None`` and ``new`` for a player yet to make."""

    player: Player | None
    by: str
    name: str
    external_id: str | None

    @property
    def key(self) -> str:
        """What two registrations of one batch share when they are the same person."""
        if self.player is not None:
            return f"player:{self.player.id}"
        if self.external_id is not None:
            return f"external:{self.external_id}"
        return f"name:{name_key(self.name)}"


async def find_identity(
    session: AsyncSession, *, player_id: str | None, name: str | None, external_id: str | None
) -> Identity:
    """The player a registration names, found by the rule of app/core/identity.py; nothing is written.
    Several players of the same name key and no external id to choose are a Conflict."""
    if player_id:
        player = await get_player(session, player_id)
        return Identity(player, "player_id", player.name, player.external_id)
    display = clean_name(name or "")
    if external_id is not None:
        held = (
            await session.execute(select(Player).where(Player.external_id == external_id))
        ).scalar_one_or_none()
        if held is not None:
            return Identity(held, "external_id", held.name, external_id)
    rows = list(
        (
            await session.execute(select(Player).where(Player.name_key == name_key(display)).limit(20))
        ).scalars()
    )
    if external_id is not None:
        rows = [p for p in rows if p.external_id is None]
    if len(rows) > 1:
        raise Conflict(f"several players are named {display!r}; register by player_id or external_id")
    if rows:
        return Identity(rows[0], "name", rows[0].name, external_id)
    return Identity(None, "new", display, external_id)


async def claim_identity(session: AsyncSession, identity: Identity) -> Player:
    """The identity's player, made when new; a matched player without an external id gains it."""
    if identity.player is None:
        return await create_player(session, identity.name, identity.external_id)
    if identity.external_id is not None and identity.player.external_id is None:
        identity.player.external_id = identity.external_id
    return identity.player


async def find_or_create_by_name(session: AsyncSession, name: str) -> Player:
    """The player of this name (matched by its name key), created when there is none."""
    return await claim_identity(
        session, await find_identity(session, player_id=None, name=name, external_id=None)
    )


async def search_players(
    session: AsyncSession, q: str | None, limit: int, cursor: str | None
) -> tuple[list[Player], str | None]:
    """Players by name (case-insensitive substring), ordered by (name, id); the cursor is the last id."""
    stmt = select(Player)
    if q:
        stmt = stmt.where(Player.name.ilike(f"%{q}%"))
    if cursor:
        last = await session.get(Player, cursor) if len(cursor) <= 64 and cursor.isprintable() else None
        if last is None:  # not a cursor this list handed out (api.md "Paging"): nothing is guessed
            raise InvalidInput("bad cursor", [Problem(("query", "cursor"), "not a cursor of this list")])
        stmt = stmt.where((Player.name > last.name) | ((Player.name == last.name) & (Player.id > last.id)))
    rows = list((await session.execute(stmt.order_by(Player.name, Player.id).limit(limit + 1))).scalars())
    nxt = rows[limit - 1].id if len(rows) > limit else None
    return rows[:limit], nxt
