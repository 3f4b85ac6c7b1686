from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, Field, StrictBool

from app.api.deps import SessionDep
from app.api.jobs import accepted
from app.api.schemas import JobAccepted, Strict
from app.services import schedules as svc

router = APIRouter(prefix="/v1/schedules", tags=["schedules"])


class RoundRobinRequest(Strict):
    # games_per_player with mode "games" and only then (validate_request); what the numbers must be
    # to each other (a table no larger than the players, seats that split into tables, the most
    # tables) is arithmetic between them, the checker's
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"properties": {"mode": {"const": "complete"}, "games_per_player": {"type": "null"}}},
                {
                    "required": ["mode", "games_per_player"],
                    "properties": {"mode": {"const": "games"}, "games_per_player": {"type": "integer"}},
                },
            ]
        }
    )

    players: int = Field(ge=2, le=256)
    table_size: int = Field(ge=2, le=64)
    mode: Literal["complete", "games"] = "complete"
    games_per_player: int | None = Field(default=None, ge=1, le=10_000, description='with mode "games" only')
    rounds: StrictBool = False  # true or false: 0 and "yes" are no answer
    seed: str | None = Field(default=None, max_length=128)
    time_budget: int = Field(default=20, ge=1, le=120, description="seconds the search may take")


@router.post("/round-robin", operation_id="search_round_robin", status_code=202, response_model=JobAccepted)
async def search_round_robin(body: RoundRobinRequest, session: SessionDep) -> JSONResponse:
    """Search a round-robin design (tables of `table_size` seats numbered from 0) in a worker.

    Impossible requests are a 422 at once; the job's `result` is `{tables, rounds?, report}` — the best
    design found within the time budget, with a warning when the budget cut the search short."""
    return accepted(await svc.request_search(session, body.model_dump()))
