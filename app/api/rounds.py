"""Start, rounds, matches, results, advance and standings (api.md "Resources")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.api.deps import MaybePrincipal, SessionDep, check_if_match, commit, ensure_organizer
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
from app.core.errors import NotFound, Unauthorized
from app.db.models import Entry, Event, Job, Match, ResultReport, Round, Stage
from app.services import events as event_svc
from app.services import lifecycle
from app.services import results as result_svc

router = APIRouter(tags=["rounds"])


async def _names(session: AsyncSession, event_id: str) -> dict[str, str]:
    rows = await session.execute(select(Entry.id, Entry.name).where(Entry.event_id == event_id))
    return {r.id: r.name for r in rows}


def match_read(
    match: Match,
    rnd: Round,
    stage: Stage,
    names: dict[str, str],
    claims: int = 0,
    history: list[HistoryRead] | None = None,
) -> MatchRead:
    seats = sorted(match.seats, key=lambda s: s.seat)
    result = None
    if match.status in ("confirmed", "bye") and match.outcome:
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
        history=history,
    )


async def round_read(session: AsyncSession, rnd: Round) -> RoundRead:
    stage = await session.get(Stage, rnd.stage_id)
    assert stage is not None
    names = await _names(session, rnd.event_id)
    rows = await session.execute(
        select(Match).where(Match.round_id == rnd.id).options(selectinload(Match.seats)).order_by(Match.table)
    )
    return RoundRead(
        number=rnd.number,
        stage=stage.index,
        matches=[match_read(m, rnd, stage, names) for m in rows.scalars()],
        pairing=(rnd.details or {}).get("pairing"),
    )


async def _lifecycle_read(
    session: AsyncSession, event: Event, stage: Stage | None, result: Round | Job | None
) -> LifecycleRead:
    out = LifecycleRead(
        event=event_read(event, await event_svc.count_entries(session, event.id)),
        stage=stage.index if stage is not None else None,
        note=stage.details.get("note") if stage is not None else None,
    )
    if isinstance(result, Round):
        out.round = await round_read(session, result)
    elif isinstance(result, Job):
        out.job_id = result.id
    return out


@router.post("/v1/events/{event_id}/start", operation_id="start_event", response_model=LifecycleRead)
async def start_event(
    request: Request, event_id: str, session: SessionDep, principal: MaybePrincipal
) -> LifecycleRead:
    """Start the event (organizer): draw tie-break values, groups and the first round or schedule.

    A schedule search runs as a job (`job_id`)."""
    ensure_organizer(principal, event_id)
    event = await lifecycle.lock_event(session, event_id)
    result = await lifecycle.start_event(session, event)
    stage = await lifecycle.active_stage(session, event_id)
    await commit(request, session)
    return await _lifecycle_read(session, event, stage, result)


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
    ensure_organizer(principal, event_id)

    async def handler() -> tuple[int, object, dict[str, str]]:
        event = await lifecycle.lock_event(session, event_id)
        rnd = await lifecycle.pair_next_round(session, event, body.tables if body else None)
        read = await round_read(session, rnd)
        return 201, read, {"Location": f"/v1/events/{event_id}/rounds/{rnd.number}"}

    return await run_idempotent(request, session, principal, body.model_dump() if body else {}, handler)


@router.get("/v1/events/{event_id}/rounds", operation_id="list_rounds", response_model=list[RoundRead])
async def list_rounds(event_id: str, session: SessionDep) -> list[RoundRead]:
    await event_svc.get_event(session, event_id)
    rows = await session.execute(select(Round).where(Round.event_id == event_id).order_by(Round.number))
    return [await round_read(session, r) for r in rows.scalars()]


@router.get("/v1/events/{event_id}/rounds/{number}", operation_id="get_round", response_model=RoundRead)
async def get_round(
    event_id: str, number: Annotated[int, Path(ge=1, le=1_000_000)], session: SessionDep
) -> RoundRead:
    rnd = (
        await session.execute(select(Round).where(Round.event_id == event_id, Round.number == number))
    ).scalar_one_or_none()
    if rnd is None:
        raise NotFound(f"round {number} of event {event_id} not found")
    return await round_read(session, rnd)


async def _full_match(session: AsyncSession, match: Match) -> MatchRead:
    rnd = await session.get(Round, match.round_id)
    assert rnd is not None
    stage = await session.get(Stage, rnd.stage_id)
    assert stage is not None
    claims = (
        await session.execute(
            select(func.count()).select_from(ResultReport).where(ResultReport.match_id == match.id)
        )
    ).scalar_one()
    history = [
        HistoryRead(
            action=h.action, actor=h.actor, version=h.match_version, payload=h.payload, at=h.created_at
        )
        for h in await result_svc.history(session, match.id)
    ]
    return match_read(match, rnd, stage, await _names(session, match.event_id), int(claims), history)


@router.get("/v1/matches/{match_id}", operation_id="get_match", response_model=MatchRead)
async def get_match(match_id: str, session: SessionDep, response: Response) -> MatchRead:
    """A match with its seats, result and audit history; `ETag` is its version."""
    match = await result_svc.load_match(session, match_id)
    response.headers["ETag"] = f'"{match.version}"'
    return await _full_match(session, match)


@router.post("/v1/matches/{match_id}/result", operation_id="report_result", response_model=MatchRead)
async def report_result(
    request: Request, match_id: str, body: ResultIn, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """Report a result: the organizer's is final; a seat's entry token files a claim, confirmed when
    every seat agrees, `disputed` when they differ."""
    if principal is None:
        raise Unauthorized("the organizer's token or a seated entry's token is required")

    async def handler() -> tuple[int, object, dict[str, str]]:
        match = await result_svc.report(
            session,
            match_id,
            principal.kind,
            principal.entry_id,
            principal.event_id,
            body.model_dump(exclude_unset=True),
        )
        read = await _full_match(session, match)
        return 200, read, {"ETag": f'"{match.version}"'}

    return await run_idempotent(request, session, principal, body, handler)


@router.put("/v1/matches/{match_id}/result", operation_id="correct_result", response_model=MatchRead)
async def correct_result(
    request: Request,
    match_id: str,
    body: ResultIn,
    session: SessionDep,
    principal: MaybePrincipal,
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> MatchRead:
    """Correct a result or rule on a dispute (organizer; `If-Match: <match version>`). Kept in the history."""
    match = await result_svc.load_match(session, match_id)
    ensure_organizer(principal, match.event_id)
    check_if_match(if_match, match.version)
    assert principal is not None
    match = await result_svc.correct(
        session, match_id, match.version, body.model_dump(exclude_unset=True), principal.kind
    )
    await commit(request, session)
    response.headers["ETag"] = f'"{match.version}"'
    return await _full_match(session, match)


@router.post("/v1/events/{event_id}/advance", operation_id="advance_event", response_model=LifecycleRead)
async def advance_event(
    request: Request, event_id: str, session: SessionDep, principal: MaybePrincipal
) -> LifecycleRead:
    """Close the current stage and seed the next from its standings (organizer); after the last
    stage the event is finished and its seed revealed."""
    ensure_organizer(principal, event_id)
    event = await lifecycle.lock_event(session, event_id)
    stage, result = await lifecycle.advance(session, event)
    await commit(request, session)
    return await _lifecycle_read(session, event, stage, result)


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
    event = await event_svc.get_event(session, event_id)
    stages = await lifecycle.stages_of(session, event_id)
    chosen: Stage | None = None
    if stage is not None:
        chosen = next((s for s in stages if s.index == stage), None)
        if chosen is None:
            raise NotFound(f"stage {stage} of event {event_id} not found (it may not have started)")
    elif stages:
        # The active stage; once the event is over, the last stage that was played (a playoff
        # skipped for want of a tie holds no games and is passed over).
        started = [s for s in stages if s.status != "pending"]
        played = {
            r.stage_id
            for r in (await session.execute(select(Round).where(Round.event_id == event_id))).scalars()
        }
        chosen = next(
            (s for s in started if s.status == "active"),
            next((s for s in reversed(started) if s.id in played), started[-1] if started else None),
        )
    rows = await lifecycle.stage_standings(session, event, chosen, group)
    groups = chosen.details.get("groups", {}) if chosen is not None else {}
    return StandingsRead(
        event_id=event_id,
        stage=chosen.index if chosen is not None else None,
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
                group=groups.get(r.entry_id),
                status=r.status,
            )
            for r in rows
        ],
    )
