"""Start, rounds, matches, results, advance and standings (api.md "Resources")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request, Response
from fastapi.responses import JSONResponse

from app.api.deps import MaybePrincipal, SessionDep
from app.api.events import event_read
from app.api.idempotency import run_idempotent
from app.api.schemas import (
    HistoryRead,
    LifecycleRead,
    MatchRead,
    MatchResultRead,
    ResultIn,
    RoundCreate,
    RoundRead,
    SeatRead,
    SeatResultRead,
    StandingRowRead,
    StandingsRead,
)
from app.core.access import Access, authorize
from app.core.errors import Unauthorized
from app.core.vocabulary import MatchStatus
from app.db.models import Match, ResultHistory, Round, Stage
from app.services import lifecycle
from app.services import results as result_svc
from app.services import rounds as round_svc
from app.services import standings as standings_svc
from app.services.events import EventView
from app.services.results import MatchView
from app.services.rounds import RoundView

router = APIRouter(tags=["rounds"])


def match_read(
    match: Match,
    rnd: Round,
    stage: Stage,
    names: dict[str, str],
    claims: int = 0,
    history: list[ResultHistory] | None = None,
) -> MatchRead:
    seats = sorted(match.seats, key=lambda s: s.seat)
    result = None
    if match.status in (MatchStatus.CONFIRMED, MatchStatus.BYE) and match.outcome:
        result = MatchResultRead(
            outcome=match.outcome,
            seats=[
                SeatResultRead(
                    entry_id=s.entry_id,
                    place=s.place,
                    score=s.score,
                    body_points=s.body_points,
                    differential=s.differential,
                    violation=s.violation,
                )
                for s in seats
            ],
        )
    return MatchRead(
        id=match.id,
        event_id=match.event_id,
        round=rnd.number,
        stage=stage.index,
        table=match.table,
        status=match.status,
        best_of=match.best_of,
        version=match.version,
        seats=[
            SeatRead(
                entry_id=s.entry_id,
                name=names.get(s.entry_id, ""),
                seat=s.seat,
                character=s.character,
                first_token=s.first_token,
            )
            for s in seats
        ],
        result=result,
        claims=claims,
        history=None
        if history is None
        else [
            HistoryRead(
                action=h.action, actor=h.actor, version=h.match_version, payload=h.payload, at=h.created_at
            )
            for h in history
        ],
    )


def full_match_read(view: MatchView) -> MatchRead:
    return match_read(view.match, view.round, view.stage, view.names, view.claims, view.history)


def round_read(view: RoundView) -> RoundRead:
    return RoundRead(
        number=view.round.number,
        stage=view.stage.index,
        matches=[match_read(m, view.round, view.stage, view.names) for m in view.matches],
        pairing=(view.round.details or {}).get("pairing"),
    )


def lifecycle_read(progress: lifecycle.Progress) -> LifecycleRead:
    return LifecycleRead(
        event=event_read(EventView(progress.event, progress.entries)),
        stage=progress.stage.index if progress.stage is not None else None,
        note=progress.note,
        round=round_read(progress.round) if progress.round is not None else None,
        job_id=progress.job.id if progress.job is not None else None,
    )


@router.post("/v1/events/{event_id}/start", operation_id="start_event", response_model=LifecycleRead)
async def start_event(event_id: str, session: SessionDep, principal: MaybePrincipal) -> LifecycleRead:
    """Start the event (organizer): draw tie-break values, groups and the first round or schedule.

    A schedule search runs as a job (`job_id`)."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)
    return lifecycle_read(await lifecycle.start(session, event_id))


@router.post(
    "/v1/events/{event_id}/rounds", operation_id="create_round", status_code=201, response_model=RoundRead
)
async def create_round(
    request: Request,
    event_id: str,
    session: SessionDep,
    principal: MaybePrincipal,
    body: RoundCreate | None = None,
) -> JSONResponse:
    """Pair the next round of the current stage (organizer); with `tables`, create exactly those.

    409 while a match of the current round is unreported."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)

    async def handler() -> tuple[int, object, dict[str, str]]:
        view = await lifecycle.pair(session, event_id, body.tables if body else None)
        return 201, round_read(view), {"Location": f"/v1/events/{event_id}/rounds/{view.round.number}"}

    return await run_idempotent(request, session, principal, body.model_dump() if body else {}, handler)


@router.get("/v1/events/{event_id}/rounds", operation_id="list_rounds", response_model=list[RoundRead])
async def list_rounds(event_id: str, session: SessionDep) -> list[RoundRead]:
    return [round_read(v) for v in await round_svc.event_rounds(session, event_id)]


@router.get("/v1/events/{event_id}/rounds/{number}", operation_id="get_round", response_model=RoundRead)
async def get_round(
    event_id: str, number: Annotated[int, Path(ge=1, le=1_000_000)], session: SessionDep
) -> RoundRead:
    return round_read(await round_svc.round_by_number(session, event_id, number))


@router.get("/v1/matches/{match_id}", operation_id="get_match", response_model=MatchRead)
async def get_match(match_id: str, session: SessionDep, response: Response) -> MatchRead:
    """A match with its seats, result and audit history; `ETag` is its version."""
    view = await result_svc.get_match(session, match_id)
    response.headers["ETag"] = f'"{view.match.version}"'
    return full_match_read(view)


@router.post("/v1/matches/{match_id}/result", operation_id="report_result", response_model=MatchRead)
async def report_result(
    request: Request, match_id: str, body: ResultIn, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """Report a result: the organizer's is final; a seat's entry token files a claim, confirmed when
    every seat agrees, `disputed` when they differ."""
    if principal is None:
        raise Unauthorized("the organizer's token or a seated entry's token is required")
    who = principal

    async def handler() -> tuple[int, object, dict[str, str]]:
        match = await result_svc.report(session, match_id, who, body.model_dump(exclude_unset=True))
        view = await result_svc.match_view(session, match)
        return 200, full_match_read(view), {"ETag": f'"{match.version}"'}

    return await run_idempotent(request, session, principal, body, handler)


@router.post("/v1/matches/{match_id}/confirm", operation_id="confirm_result", response_model=MatchRead)
async def confirm_result(
    request: Request, match_id: str, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """Confirm the players' agreeing claims (organizer): where the preset has the organizer confirm
    results (BATTLEBOOKS Swiss events), claims wait in `reported` until this. 409 when no claim is
    filed, when they differ (rule on the dispute with PUT) or when the result is confirmed."""
    if principal is None:
        raise Unauthorized("the organizer's token is required")
    who = principal

    async def handler() -> tuple[int, object, dict[str, str]]:
        match = await result_svc.confirm(session, match_id, who)
        view = await result_svc.match_view(session, match)
        return 200, full_match_read(view), {"ETag": f'"{match.version}"'}

    return await run_idempotent(request, session, principal, {}, handler)


@router.put("/v1/matches/{match_id}/result", operation_id="correct_result", response_model=MatchRead)
async def correct_result(
    match_id: str,
    body: ResultIn,
    session: SessionDep,
    principal: MaybePrincipal,
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> MatchRead:
    """Correct a result or rule on a dispute (organizer; `If-Match: <match version>`). Kept in the history."""
    match = await result_svc.correct(
        session, match_id, principal, if_match, body.model_dump(exclude_unset=True)
    )
    response.headers["ETag"] = f'"{match.version}"'
    return full_match_read(await result_svc.match_view(session, match))


@router.post("/v1/events/{event_id}/advance", operation_id="advance_event", response_model=LifecycleRead)
async def advance_event(event_id: str, session: SessionDep, principal: MaybePrincipal) -> LifecycleRead:
    """Close the current stage and seed the next from its standings (organizer); after the last
    stage the event is finished and its seed revealed."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)
    return lifecycle_read(await lifecycle.close_stage(session, event_id))


@router.get("/v1/events/{event_id}/standings", operation_id="get_standings", response_model=StandingsRead)
async def get_standings(
    event_id: str,
    session: SessionDep,
    stage: Annotated[
        int | None, Query(ge=0, description="stage index; default the current (or last) stage")
    ] = None,
    group: Annotated[str | None, Query(max_length=32)] = None,
) -> StandingsRead:
    """Standings computed from the stored results, with every criterion's value and `decided_by`."""
    view = await standings_svc.event_standings(session, event_id, stage, group)
    return StandingsRead(
        event_id=event_id,
        stage=view.stage.index if view.stage is not None else None,
        group=group,
        rows=[
            StandingRowRead(
                rank=r.rank,
                entry_id=r.entry_id,
                name=r.name,
                points=r.points,
                games=r.games,
                wins=r.wins,
                differential=r.differential,
                average=r.average,
                tiebreaks=r.tiebreaks,
                decided_by=r.decided_by,
                group=view.groups.get(r.entry_id),
                status=r.status,
            )
            for r in view.rows
        ],
    )
