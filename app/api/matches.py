"""A match: its read, and its result reported, confirmed and corrected
(api.md "Matches and results")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response

from app.api.auth import ResultKeeper, SeatedOrOrganizer
from app.api.caching import cached
from app.api.deps import SessionDep
from app.api.idempotency import run_idempotent
from app.api.schemas import (
    HistoryRead,
    MatchRead,
    MatchResultRead,
    ResultIn,
    SeatRead,
    SeatResultRead,
)
from app.api.verdicts import match_verdict
from app.core.vocabulary import MatchStatus, Outcome
from app.db.models import Match, ResultHistory, Round, Stage
from app.services import results as result_svc
from app.services.results import MatchView

router = APIRouter(tags=["rounds"])


def match_read(
    match: Match,
    rnd: Round,
    stage: Stage,
    names: dict[str, str],
    claims: int = 0,
    history: list[ResultHistory] | None = None,
    warnings: list[str] | None = None,
) -> MatchRead:
    seats = sorted(match.seats, key=lambda s: s.seat)
    result = None
    if match.status in (MatchStatus.CONFIRMED, MatchStatus.BYE) and match.outcome:
        result = MatchResultRead(
            outcome=Outcome(match.outcome),
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
        status=MatchStatus(match.status),
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
        verdict=match_verdict(match.details),
        warnings=warnings or [],
    )


def full_match_read(view: MatchView, warnings: list[str] | None = None) -> MatchRead:
    return match_read(view.match, view.round, view.stage, view.names, view.claims, view.history, warnings)


@router.get("/v1/matches/{match_id}", operation_id="get_match", response_model=MatchRead)
async def get_match(request: Request, match_id: str, session: SessionDep) -> Response:
    """A match with its seats, result and audit history; its `ETag` starts with its version
    (`"<version>-…"`), so it serves as the `If-Match` of a correction."""
    view = await result_svc.get_match(session, match_id)
    return cached(request, full_match_read(view), version=view.match.version)


@router.post("/v1/matches/{match_id}/result", operation_id="report_result", response_model=MatchRead)
async def report_result(
    request: Request, match_id: str, body: ResultIn, session: SessionDep, who: SeatedOrOrganizer
) -> Response:
    """Report a result: the organizer's is final; a seat's entry token files a claim, confirmed when
    every seat agrees, `disputed` when they differ."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        view = await result_svc.report(session, match_id, who, body.model_dump(exclude_unset=True))
        return 200, full_match_read(view), {"ETag": f'"{view.match.version}"'}

    return await run_idempotent(request, session, who, body, handler)


@router.post("/v1/matches/{match_id}/confirm", operation_id="confirm_result", response_model=MatchRead)
async def confirm_result(request: Request, match_id: str, session: SessionDep, who: ResultKeeper) -> Response:
    """Confirm the players' agreeing claims (organizer): where the preset has the organizer confirm
    results (BATTLEBOOKS Swiss events), claims wait in `reported` until this. 409 when no claim is
    filed, when they differ (rule on the dispute with PUT) or when the result is confirmed."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        view = await result_svc.confirm(session, match_id, who)
        return 200, full_match_read(view), {"ETag": f'"{view.match.version}"'}

    return await run_idempotent(request, session, who, {}, handler)


@router.put("/v1/matches/{match_id}/result", operation_id="correct_result", response_model=MatchRead)
async def correct_result(
    match_id: str,
    body: ResultIn,
    session: SessionDep,
    who: ResultKeeper,
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> MatchRead:
    """Correct a result or rule on a dispute (organizer; `If-Match: <match version>`). Kept in the history.

    After its stage has closed, `warnings` say what was built on it that the correction made stale
    (the standings, the next stage's seeding); they are kept in the history too."""
    corrected = await result_svc.correct(
        session, match_id, who, if_match, body.model_dump(exclude_unset=True)
    )
    response.headers["ETag"] = f'"{corrected.match.version}"'
    return full_match_read(await result_svc.match_view(session, corrected.match), corrected.warnings)
