"""Board Game Arena round robins over HTTP: what the general API lacks (bga-round-robin.md).

- ``GET /v1/events/{id}/bga`` (public): the plan (stages, groups), the schedule report's warnings,
  the final (finalists, registrations, withdrawals, forfeits) and the winner(s) once decided.
- ``POST /v1/events/{id}/bga/final/withdrawals {entry_id}`` (organizer, or that entry): the entry will
  not play the final; during the final's registration the next in line takes the seat.
- ``POST /v1/events/{id}/bga/final/registrations {entry_id}`` (organizer, or that entry).
- ``POST /v1/events/{id}/bga/final/deadline`` (organizer): registration is over; unregistered finalists
  forfeit (refused before ``settings.final_deadline``).
- ``POST /v1/matches/{id}/bga/tables {table, created_at, players, settings, allowed?}`` (organizer, or a
  player of the match; ``allowed`` is the organizer's): record a BGA table and judge the match's tables.
- ``POST /v1/events/{id}/bga/join-deadline {absent: {match_id: [entry_id]}}`` (organizer): the join
  deadline has passed (refused before ``settings.join_deadline``): absent players and tables never
  created become violations.

Every rule lives in app/core/games/bga.py and app/services/presets/bga.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from app.api.auth import EventMember, Organizer, require
from app.api.deps import SessionDep
from app.api.schemas import Instant, Strict
from app.core.access import Access, Principal
from app.core.vocabulary import EventStatus
from app.services.presets import bga as svc

router = APIRouter(tags=["bga"])


class FinalistIn(Strict):
    entry_id: str = Field(min_length=1, max_length=64)


class TableIn(Strict):
    table: str = Field(min_length=1, max_length=100, description="the BGA table id")
    created_at: Instant = Field(description="when the table was created on BGA")
    players: list[Annotated[str, Field(max_length=64)]] = Field(
        min_length=1, max_length=8, description="entry ids seated at the table"
    )
    settings: dict[Annotated[str, Field(max_length=100)], Annotated[str, Field(max_length=200)]] = Field(
        default_factory=dict,
        max_length=32,
        description="e.g. variant, two_player_rule, speed, as the site shows them (case and spacing "
        "do not matter); compared with the event's table_settings",
    )
    allowed: bool = Field(default=False, description="the organizer permits this table whatever its settings")


class JoinDeadlineIn(Strict):
    absent: dict[
        Annotated[str, Field(max_length=64)],
        Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=8)],
    ] = Field(
        default_factory=dict,
        max_length=10_000,
        description="per pending match id, the players who did not join its table",
    )


class BgaRead(BaseModel):
    event_id: str
    preset: str | None
    status: EventStatus
    stages: list[dict[str, Any]]
    warnings: list[str]
    schedule_report: dict[str, Any] | None = None
    final: dict[str, Any] | None
    winners: list[str]
    names: dict[str, str] = Field(
        default_factory=dict, description="every entry's name by id (the ids above are entries)"
    )
    table_settings: dict[str, str | list[str]] | None = Field(
        default=None,
        description="3-player: each table setting's allowed value(s), compared as the site shows them",
    )


class ActionRead(BaseModel):
    model_config = ConfigDict(extra="allow")


@router.get("/v1/events/{event_id}/bga", operation_id="get_bga_event", response_model=BgaRead)
async def get_bga_event(event_id: str, session: SessionDep) -> BgaRead:
    """A Board Game Arena round robin's plan, schedule warnings, final and winner(s)."""
    return BgaRead(**await svc.summary(session, event_id))


@router.post(
    "/v1/events/{event_id}/bga/final/withdrawals",
    operation_id="withdraw_bga_finalist",
    response_model=ActionRead,
)
async def withdraw_finalist(
    event_id: str, body: FinalistIn, session: SessionDep, who: EventMember
) -> ActionRead:
    """Withdraw an entry from the final (the organizer, or the entry itself); the next in line replaces it."""
    return ActionRead(**await svc.withdraw_finalist(session, event_id, who, body.entry_id))


@router.post(
    "/v1/events/{event_id}/bga/final/registrations",
    operation_id="register_bga_finalist",
    response_model=ActionRead,
)
async def register_finalist(
    event_id: str, body: FinalistIn, session: SessionDep, who: EventMember
) -> ActionRead:
    """Register a finalist for the final (the organizer, or the finalist itself)."""
    return ActionRead(**await svc.register_finalist(session, event_id, who, body.entry_id))


@router.post(
    "/v1/events/{event_id}/bga/final/deadline",
    operation_id="close_bga_final_registration",
    response_model=ActionRead,
)
async def close_final_registration(event_id: str, session: SessionDep, who: Organizer) -> ActionRead:
    """Close the final's registration (organizer): every unregistered finalist forfeits."""
    return ActionRead(**await svc.close_final_registration(session, event_id))


@router.post("/v1/matches/{match_id}/bga/tables", operation_id="record_bga_table", response_model=ActionRead)
async def record_table(
    match_id: str,
    body: TableIn,
    session: SessionDep,
    who: Annotated[Principal, Depends(require(Access.ORGANIZER_OR_EVENT_ENTRY, rows=True))],
) -> ActionRead:
    """Record a BGA table created for a scheduled match; every table of the match is judged again
    (wrong settings, wrong players and surplus tables do not count; the oldest valid one does)."""
    return ActionRead(**await svc.record_table(session, match_id, who, body.model_dump()))


@router.post(
    "/v1/events/{event_id}/bga/join-deadline",
    operation_id="close_bga_join_deadline",
    response_model=ActionRead,
)
async def close_join_deadline(
    event_id: str,
    session: SessionDep,
    who: Organizer,
    body: JoinDeadlineIn | None = None,
) -> ActionRead:
    """Close the join deadline (organizer): players named absent, and every player of a pending match
    with no counted table, score a violation."""
    return ActionRead(**await svc.close_join_deadline(session, event_id, body.absent if body else {}))
