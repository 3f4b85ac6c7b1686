"""Players: one identity across events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, NotFound
from app.core.identity import clean_name, name_key
from app.db.models import Player
from app.services.offload import in_turns
from app.services.paging import bad_cursor


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


@dataclass(frozen=True)
class IdentityQuery:
    """What one registration says of its player (one of ``player_id`` or ``name``)."""

    player_id: str | None
    name: str | None
    external_id: str | None


CHUNK = 500  # ids or keys per IN list: well below SQLite's and asyncpg's limits on bound values


async def _players(session: AsyncSession, column: Any, values: set[str]) -> list[Player]:
    """The players whose ``column`` is one of ``values``, by chunks of ``CHUNK``."""
    out: list[Player] = []
    ordered = sorted(values)
    for lo in range(0, len(ordered), CHUNK):
        rows = await session.execute(select(Player).where(column.in_(ordered[lo : lo + CHUNK])))
        out.extend(rows.scalars())
    return out


async def find_identities(
    session: AsyncSession, queries: Sequence[IdentityQuery]
) -> list[Identity | Conflict | NotFound]:
    """The player each registration names, found by the rule of app/core/identity.py against the
    players stored (a batch's rows do not find each other: ``Identity.key`` says which are one
    person); nothing is written. A row that names no player (an unknown ``player_id``) is a
    NotFound, several players of the same name key and no external id to choose a Conflict, each
    in the row's place. A few statements, whatever the number of rows."""
    by_id = {
        p.id: p for p in await _players(session, Player.id, {q.player_id for q in queries if q.player_id})
    }
    wanted = {q.external_id for q in queries if not q.player_id and q.external_id is not None}
    by_external = {p.external_id: p for p in await _players(session, Player.external_id, wanted)}
    displays = [clean_name(q.name or "") async for q in in_turns(queries)]
    name_keys = [name_key(d) async for d in in_turns(displays)]
    keys = {
        key
        for q, key in zip(queries, name_keys, strict=True)
        if not q.player_id and (q.external_id is None or q.external_id not in by_external)
    }
    by_key: dict[str, list[Player]] = {}
    for p in await _players(session, Player.name_key, keys):
        by_key.setdefault(p.name_key, []).append(p)
    out: list[Identity | Conflict | NotFound] = []
    async for q, display, key in in_turns(zip(queries, displays, name_keys, strict=True)):
        if q.player_id:
            player = by_id.get(q.player_id)
            out.append(
                Identity(player, "player_id", player.name, player.external_id)
                if player is not None
                else NotFound(f"player {q.player_id} not found")
            )
            continue
        held = by_external.get(q.external_id) if q.external_id is not None else None
        if held is not None:
            out.append(Identity(held, "external_id", held.name, q.external_id))
            continue
        rows = by_key.get(key, [])
        if q.external_id is not None:
            rows = [p for p in rows if p.external_id is None]
        if len(rows) > 1:
            out.append(
                Conflict(f"several players are named {display!r}; register by player_id or external_id")
            )
        elif rows:
            out.append(Identity(rows[0], "name", rows[0].name, q.external_id))
        else:
            out.append(Identity(None, "new", display, q.external_id))
    return out


async def find_identity(
    session: AsyncSession, *, player_id: str | None, name: str | None, external_id: str | None
) -> Identity:
    """The player a registration names (``find_identities`` of one row); nothing is written. Several
    players of the same name key and no external id to choose are a Conflict."""
    (found,) = await find_identities(session, [IdentityQuery(player_id, name, external_id)])
    if isinstance(found, Identity):
        return found
    raise found


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
            raise bad_cursor()
        stmt = stmt.where((Player.name > last.name) | ((Player.name == last.name) & (Player.id > last.id)))
    rows = list((await session.execute(stmt.order_by(Player.name, Player.id).limit(limit + 1))).scalars())
    nxt = rows[limit - 1].id if len(rows) > limit else None
    return rows[:limit], nxt
