from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.deps import Admin, SessionDep
from app.api.idempotency import run_idempotent
from app.api.schemas import GameCreate, GameRead
from app.db.models import Game
from app.services import games as svc

router = APIRouter(prefix="/v1/games", tags=["games"])


def game_read(g: Game) -> GameRead:
    return GameRead(
        key=g.key, name=g.name, min_seats=g.min_seats, max_seats=g.max_seats, adjudicator=g.adjudicator
    )


@router.get("", operation_id="list_games", response_model=list[GameRead])
async def list_games(session: SessionDep) -> list[GameRead]:
    return [game_read(g) for g in await svc.list_games(session)]


@router.post("", operation_id="create_game", status_code=201, response_model=GameRead)
async def create_game(request: Request, body: GameCreate, session: SessionDep, admin: Admin) -> JSONResponse:
    """Add a game to the catalog (admin)."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        g = await svc.create_game(
            session, body.key, body.name, body.min_seats, body.max_seats, body.adjudicator
        )
        return 201, game_read(g), {}

    return await run_idempotent(request, session, admin, body, handler)
