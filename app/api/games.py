from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.api.auth import Admin
from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.deps import SessionDep
from app.api.idempotency import run_idempotent
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_list
from app.api.schemas import GameCreate, GamePage, GameRead
from app.db.models import Game
from app.services import games as svc

router = APIRouter(prefix="/v1/games", tags=["games"])


def game_read(g: Game) -> GameRead:
    return GameRead(
        key=g.key, name=g.name, min_seats=g.min_seats, max_seats=g.max_seats, adjudicator=g.adjudicator
    )


@router.get("", operation_id="list_games", response_model=GamePage, responses=CSV_CONTENT)
async def list_games(
    request: Request,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The catalog, by key (`?format=csv`: one game a line)."""
    fetch = from_list(await svc.list_games(session), lambda g: g.key, game_read)
    return await list_answer(request, format, GamePage, fetch, "games.csv", limit=limit, cursor=cursor)


@router.post("", operation_id="create_game", status_code=201, response_model=GameRead)
async def create_game(request: Request, body: GameCreate, session: SessionDep, admin: Admin) -> Response:
    """Add a game to the catalog (admin)."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        g = await svc.create_game(
            session, body.key, body.name, body.min_seats, body.max_seats, body.adjudicator
        )
        return 201, game_read(g), {}

    return await run_idempotent(request, session, admin, body, handler)
