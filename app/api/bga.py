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

from typing import Any

from fastapi import APIRouter, Request
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from app.api.deps import MaybePrincipal, Principal, SessionDep, commit, ensure_organizer
from app.api.schemas import Strict
from app.core.errors import Forbidden, Unauthorized
from app.db.models import Entry
from app.services import lifecycle
from app.services.events import get_event
from app.services.presets import bga as svc

router = APIRouter(tags=["bga"])


class FinalistIn(Strict):
    entry_id: str = Field(min_length=1)


class TableIn(Strict):
    table: str = Field(min_length=1, max_length=100, description="the BGA table id")
    created_at: AwareDatetime = Field(description="when the table was created on BGA")
    players: list[str] = Field(min_length=1, max_length=8, description="entry ids seated at the table")
    settings: dict[str, str] = Field(
        default_factory=dict,
        description="e.g. variant, two_player_rule, speed, as the event's table_settings",
    )
    allowed: bool = Field(default=False, description="the organizer permits this table whatever its settings")


class JoinDeadlineIn(Strict):
    absent: dict[str, list[str]] = Field(
        default_factory=dict, description="per pending match id, the players who did not join its table"
    )


class BgaRead(BaseModel):
    event_id: str
    preset: str | None
    status: str
    stages: list[dict[str, Any]]
    warnings: list[str]
    schedule_report: dict[str, Any] | None = None
    final: dict[str, Any] | None
    winners: list[str]


class ActionRead(BaseModel):
    model_config = ConfigDict(extra="allow")


async def _organizer_or_entry(
    principal: Principal | None, session: SessionDep, event_id: str, entry_id: str
) -> None:
    if principal is not None and principal.kind == "entry":
        if principal.entry_id != entry_id:
            raise Forbidden("an entry token acts only for its own entry")
        entry = await session.get(Entry, entry_id)
        if entry is None or entry.event_id != event_id:
            raise Forbidden("this token does not belong to this event")
        return
    ensure_organizer(principal, event_id)


@router.get("/v1/events/{event_id}/bga", operation_id="get_bga_event", response_model=BgaRead)
async def get_bga_event(event_id: str, session: SessionDep) -> BgaRead:
    """A Board Game Arena round robin's plan, schedule warnings, final and winner(s)."""
    event = await get_event(session, event_id)
    return BgaRead(**await svc.summary(session, event))


@router.post(
    "/v1/events/{event_id}/bga/final/withdrawals",
    operation_id="withdraw_bga_finalist",
    response_model=ActionRead,
)
async def withdraw_finalist(
    request: Request, event_id: str, body: FinalistIn, session: SessionDep, principal: MaybePrincipal
) -> ActionRead:
    """Withdraw an entry from the final (the organizer, or the entry itself); the next in line replaces it."""
    await _organizer_or_entry(principal, session, event_id, body.entry_id)
    event = await lifecycle.lock_event(session, event_id)
    out = await svc.withdraw_finalist(session, event, body.entry_id)
    await commit(request, session)
    return ActionRead(**out)


@router.post(
    "/v1/events/{event_id}/bga/final/registrations",
    operation_id="register_bga_finalist",
    response_model=ActionRead,
)
async def register_finalist(
    request: Request, event_id: str, body: FinalistIn, session: SessionDep, principal: MaybePrincipal
) -> ActionRead:
    """Register a finalist for the final (the organizer, or the finalist itself)."""
    await _organizer_or_entry(principal, session, event_id, body.entry_id)
    event = await lifecycle.lock_event(session, event_id)
    out = await svc.register_finalist(session, event, body.entry_id)
    await commit(request, session)
    return ActionRead(**out)


@router.post(
    "/v1/events/{event_id}/bga/final/deadline",
    operation_id="close_bga_final_registration",
    response_model=ActionRead,
)
async def close_final_registration(
    request: Request, event_id: str, session: SessionDep, principal: MaybePrincipal
) -> ActionRead:
    """Close the final's registration (organizer): every unregistered finalist forfeits."""
    ensure_organizer(principal, event_id)
    event = await lifecycle.lock_event(session, event_id)
    out = await svc.close_final_registration(session, event)
    await commit(request, session)
    return ActionRead(**out)


@router.post("/v1/matches/{match_id}/bga/tables", operation_id="record_bga_table", response_model=ActionRead)
async def record_table(
    request: Request, match_id: str, body: TableIn, session: SessionDep, principal: MaybePrincipal
) -> ActionRead:
    """Record a BGA table created for a scheduled match; every table of the match is judged again
    (wrong settings, wrong players and surplus tables do not count; the oldest valid one does)."""
    if principal is None:
        raise Unauthorized("the organizer token or a seated entry's token is required")
    from app.services.results import load_match

    match = await load_match(session, match_id)
    organizer = principal.kind == "admin" or (
        principal.kind == "organizer" and principal.event_id == match.event_id
    )
    if not organizer and not (principal.kind == "entry" and principal.event_id == match.event_id):
        raise Forbidden("this token does not belong to this match's event")
    out = await svc.record_table(session, match_id, body.model_dump(), organizer, principal.entry_id)
    await commit(request, session)
    return ActionRead(**out)


@router.post(
    "/v1/events/{event_id}/bga/join-deadline",
    operation_id="close_bga_join_deadline",
    response_model=ActionRead,
)
async def close_join_deadline(
    request: Request,
    event_id: str,
    session: SessionDep,
    principal: MaybePrincipal,
    body: JoinDeadlineIn | None = None,
) -> ActionRead:
    """Close the join deadline (organizer): players named absent, and every player of a pending match
    with no counted table, score a violation."""
    ensure_organizer(principal, event_id)
    event = await lifecycle.lock_event(session, event_id)
    out = await svc.close_join_deadline(session, event, body.absent if body else {})
    await commit(request, session)
    return ActionRead(**out)
