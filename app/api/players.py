from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from app.api.auth import AnyOrganizer
from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.deps import SessionDep
from app.api.idempotency import run_idempotent
from app.api.paging import from_service
from app.api.schemas import PlayerCreate, PlayerPage, PlayerRead
from app.db.models import Player
from app.services import players as svc

router = APIRouter(prefix="/v1/players", tags=["players"])


def player_read(p: Player) -> PlayerRead:
    return PlayerRead(id=p.id, name=p.name, external_id=p.external_id, created_at=p.created_at)


@router.post("", operation_id="create_player", status_code=201, response_model=PlayerRead)
async def create_player(
    request: Request, body: PlayerCreate, session: SessionDep, who: AnyOrganizer
) -> Response:
    """Create a player (the admin, or any event's organizer)."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        p = await svc.create_player(session, body.name, body.external_id)
        return 201, player_read(p), {"Location": f"/v1/players/{p.id}"}

    return await run_idempotent(request, session, who, body, handler)


@router.get("", operation_id="list_players", response_model=PlayerPage, responses=CSV_CONTENT)
async def list_players(
    request: Request,
    session: SessionDep,
    q: Annotated[str | None, Query(max_length=200, description="name contains (case-insensitive)")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: str | None = None,
    format: FormatQuery = "json",
) -> Response:
    """Players by name (`?format=csv`: one player a line, every one from the cursor on)."""
    fetch = from_service(lambda n, after: svc.search_players(session, q, n, after), player_read)
    return await list_answer(request, format, PlayerPage, fetch, "players.csv", limit=limit, cursor=cursor)


@router.get("/{player_id}", operation_id="get_player", response_model=PlayerRead)
async def get_player(player_id: str, session: SessionDep) -> PlayerRead:
    return player_read(await svc.get_player(session, player_id))
