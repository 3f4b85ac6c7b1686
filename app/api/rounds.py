"""Start, rounds, matches, results, advance and standings (api.md "Resources")."""

from __future__ import annotations

from typing import Annotated, Literal
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Header, Path, Query, Request, Response
from fastapi.responses import PlainTextResponse

from app.api.caching import Rendered, cached, cached_json, rendered
from app.api.csv_io import CSV_CONTENT, csv_response
from app.api.deps import MaybePrincipal, SessionDep
from app.api.events import event_read
from app.api.idempotency import run_idempotent
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, page
from app.api.schemas import (
    CrossCellRead,
    CrossRowRead,
    CrossTableRead,
    HistoryRead,
    LifecycleRead,
    MatchRead,
    MatchResultRead,
    ResultIn,
    RoundCreate,
    RoundPage,
    RoundRead,
    SeatRead,
    SeatResultRead,
    StandingRowRead,
    StandingsRead,
    SwapIn,
    UndoneRound,
)
from app.api.verdicts import match_verdict
from app.core.access import Access, authorize
from app.core.crosstable import cell_text
from app.core.errors import Unauthorized
from app.core.vocabulary import EntryStatus, MatchStatus, Outcome
from app.db.models import Match, ResultHistory, Round, Stage
from app.services import exports as export_svc
from app.services import lifecycle
from app.services import results as result_svc
from app.services import rounds as round_svc
from app.services import standings as standings_svc
from app.services.events import EventView
from app.services.formats.explanations import PER_PAIR
from app.services.offload import collector_paused
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


def round_read(view: RoundView, *, explain: bool = True) -> RoundRead:
    """The round; without ``explain``, its pairing's explanation without the per-pair rows."""
    pairing = (view.round.details or {}).get("pairing")
    if pairing is not None and not explain:
        pairing = {k: v for k, v in pairing.items() if k not in PER_PAIR}
    return RoundRead(
        number=view.round.number,
        stage=view.stage.index,
        matches=[match_read(m, view.round, view.stage, view.names) for m in view.matches],
        pairing=pairing,
        swaps=(view.round.details or {}).get("swaps", []),
    )


def lifecycle_read(progress: lifecycle.Progress) -> LifecycleRead:
    return LifecycleRead(
        event=event_read(EventView(progress.event, progress.entries, progress.summary)),
        stage=progress.stage.index if progress.stage is not None else None,
        note=progress.note,
        round=round_read(progress.round) if progress.round is not None else None,
        job_id=progress.job.id if progress.job is not None else None,
    )


@router.post("/v1/events/{event_id}/start", operation_id="start_event", response_model=LifecycleRead)
async def start_event(
    event_id: str,
    session: SessionDep,
    principal: MaybePrincipal,
    not_checked_in: Annotated[
        Literal["drop", "refuse"],
        Query(description="with check-in: drop the entries not checked in, or refuse to start (409)"),
    ] = "drop",
) -> LifecycleRead:
    """Start the event (organizer): draw tie-break values, groups and the first round or schedule.

    A schedule search runs as a job (`job_id`)."""
    who = authorize(principal, Access.ORGANIZER, event_id=event_id)
    return lifecycle_read(await lifecycle.start(session, event_id, who, not_checked_in))


@router.post(
    "/v1/events/{event_id}/rounds", operation_id="create_round", status_code=201, response_model=RoundRead
)
async def create_round(
    request: Request,
    event_id: str,
    session: SessionDep,
    principal: MaybePrincipal,
    body: RoundCreate | None = None,
) -> Response:
    """Pair the next round of the current stage (organizer); with `tables`, create exactly those.

    409 while a match of the current round is unreported."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)

    async def handler() -> tuple[int, object, dict[str, str]]:
        # a 10,000-entry round, its rows and its answer are millions of objects, none in a cycle
        with collector_paused():
            view = await lifecycle.pair(session, event_id, body.tables if body else None)
            answer = round_read(view)
        return 201, answer, {"Location": f"/v1/events/{event_id}/rounds/{view.round.number}"}

    return await run_idempotent(request, session, principal, body.model_dump() if body else {}, handler)


ROUND_COLUMNS = (
    "round",
    "stage",
    "table",
    "match_id",
    "status",
    "outcome",
    "seat",
    "entry_id",
    "name",
    "first_token",
    "place",
    "score",
)

FormatQuery = Annotated[Literal["json", "csv"], Query(description="json, or csv for a spreadsheet")]
ExplainQuery = Annotated[
    bool, Query(description="with the pairing's explanation of each pair (or table); without, its summary")
]


@router.get(
    "/v1/events/{event_id}/rounds",
    operation_id="list_rounds",
    response_model=RoundPage,
    responses=CSV_CONTENT,
)
async def list_rounds(
    request: Request,
    event_id: str,
    session: SessionDep,
    format: FormatQuery = "json",
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    explain: ExplainQuery = False,
) -> Response:
    """The rounds with their matches, stage by stage; `?format=csv` gives every round's pairings one
    seat a line (whole, not paged)."""
    views = await round_svc.event_rounds(session, event_id)
    if format == "csv":
        lines = [
            (
                v.round.number,
                v.stage.index,
                m.table,
                m.id,
                m.status,
                m.outcome,
                s.seat,
                s.entry_id,
                v.names.get(s.entry_id, ""),
                s.first_token,
                s.place,
                s.score,
            )
            for v in views
            for m in v.matches
            for s in sorted(m.seats, key=lambda s: s.seat)
        ]
        return csv_response(ROUND_COLUMNS, lines, f"pairings-{event_id}.csv")
    chunk, nxt = page(views, lambda v: [v.stage.index, v.round.number], limit, cursor)
    return cached(request, RoundPage(items=[round_read(v, explain=explain) for v in chunk], next_cursor=nxt))


# Each round of the service's cache rendered once per form (with the explanation or not), kept as
# long as the round is.
_rendered_rounds: WeakKeyDictionary[RoundView, dict[bool, Rendered]] = WeakKeyDictionary()


@router.get("/v1/events/{event_id}/rounds/{number}", operation_id="get_round", response_model=RoundRead)
async def get_round(
    request: Request,
    event_id: str,
    number: Annotated[int, Path(ge=1, le=1_000_000)],
    session: SessionDep,
    explain: ExplainQuery = False,
) -> Response:
    """The round with its matches; its pairing's explanation of each pair with `?explain=true`."""
    view = await round_svc.cached_round(session, event_id, number)
    forms = _rendered_rounds.setdefault(view, {})
    kept = forms.get(explain)
    if kept is None:
        kept = forms[explain] = rendered(round_read(view, explain=explain))
    return cached_json(request, kept)


@router.delete("/v1/events/{event_id}/rounds/{number}", operation_id="undo_round", response_model=UndoneRound)
async def undo_round(
    event_id: str,
    number: Annotated[int, Path(ge=1, le=1_000_000)],
    session: SessionDep,
    principal: MaybePrincipal,
) -> UndoneRound:
    """Undo the last round (organizer) while none of its matches is reported, to pair it again;
    409 naming the reported matches. Kept in the event's history."""
    who = authorize(principal, Access.ORGANIZER, event_id=event_id)
    return UndoneRound(**await lifecycle.undo_round(session, event_id, number, who))


@router.post(
    "/v1/events/{event_id}/rounds/{number}/swap", operation_id="swap_entries", response_model=RoundRead
)
async def swap_entries(
    event_id: str,
    number: Annotated[int, Path(ge=1, le=1_000_000)],
    body: SwapIn,
    session: SessionDep,
    principal: MaybePrincipal,
) -> RoundRead:
    """Swap two entries between unreported tables of a round, or their seats at one table
    (organizer). Kept in the event's history and in the round's `swaps`."""
    who = authorize(principal, Access.ORGANIZER, event_id=event_id)
    a, b = body.entries
    return round_read(await lifecycle.swap_entries(session, event_id, number, a, b, who))


@router.get("/v1/matches/{match_id}", operation_id="get_match", response_model=MatchRead)
async def get_match(request: Request, match_id: str, session: SessionDep) -> Response:
    """A match with its seats, result and audit history; its `ETag` starts with its version
    (`"<version>-…"`), so it serves as the `If-Match` of a correction."""
    view = await result_svc.get_match(session, match_id)
    return cached(request, full_match_read(view), version=view.match.version)


@router.post("/v1/matches/{match_id}/result", operation_id="report_result", response_model=MatchRead)
async def report_result(
    request: Request, match_id: str, body: ResultIn, session: SessionDep, principal: MaybePrincipal
) -> Response:
    """Report a result: the organizer's is final; a seat's entry token files a claim, confirmed when
    every seat agrees, `disputed` when they differ."""
    if principal is None:
        raise Unauthorized("the organizer's token or a seated entry's token is required")
    who = principal

    async def handler() -> tuple[int, object, dict[str, str]]:
        view = await result_svc.report(session, match_id, who, body.model_dump(exclude_unset=True))
        return 200, full_match_read(view), {"ETag": f'"{view.match.version}"'}

    return await run_idempotent(request, session, principal, body, handler)


@router.post("/v1/matches/{match_id}/confirm", operation_id="confirm_result", response_model=MatchRead)
async def confirm_result(
    request: Request, match_id: str, session: SessionDep, principal: MaybePrincipal
) -> Response:
    """Confirm the players' agreeing claims (organizer): where the preset has the organizer confirm
    results (BATTLEBOOKS Swiss events), claims wait in `reported` until this. 409 when no claim is
    filed, when they differ (rule on the dispute with PUT) or when the result is confirmed."""
    if principal is None:
        raise Unauthorized("the organizer's token is required")
    who = principal

    async def handler() -> tuple[int, object, dict[str, str]]:
        view = await result_svc.confirm(session, match_id, who)
        return 200, full_match_read(view), {"ETag": f'"{view.match.version}"'}

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
    """Correct a result or rule on a dispute (organizer; `If-Match: <match version>`). Kept in the history.

    After its stage has closed, `warnings` say what was built on it that the correction made stale
    (the standings, the next stage's seeding); they are kept in the history too."""
    corrected = await result_svc.correct(
        session, match_id, principal, if_match, body.model_dump(exclude_unset=True)
    )
    response.headers["ETag"] = f'"{corrected.match.version}"'
    return full_match_read(await result_svc.match_view(session, corrected.match), corrected.warnings)


@router.post("/v1/events/{event_id}/advance", operation_id="advance_event", response_model=LifecycleRead)
async def advance_event(event_id: str, session: SessionDep, principal: MaybePrincipal) -> LifecycleRead:
    """Close the current stage and seed the next from its standings (organizer); after the last
    stage the event is finished and its seed revealed."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)
    return lifecycle_read(await lifecycle.close_stage(session, event_id))


# Each standings answer of the service's cache rendered once, kept as long as the answer is.
_rendered: WeakKeyDictionary[standings_svc.StandingsView, Rendered] = WeakKeyDictionary()

StageQuery = Annotated[
    int | None, Query(ge=0, le=1000, description="stage index; default the current (or last) stage")
]


@router.get(
    "/v1/events/{event_id}/standings",
    operation_id="get_standings",
    response_model=StandingsRead,
    responses=CSV_CONTENT,
)
async def get_standings(
    request: Request,
    event_id: str,
    session: SessionDep,
    stage: StageQuery = None,
    group: Annotated[str | None, Query(max_length=32)] = None,
    format: FormatQuery = "json",
) -> Response:
    """Standings computed from the stored results, with every criterion's value and `decided_by`
    (`?format=csv`: one row a line, a column per tie-break)."""
    view = await standings_svc.cached_standings(session, event_id, stage, group)
    if format == "csv":
        header = ("rank", "entry_id", "name", "points", "games", "wins", "differential", "average")
        tail = ("decided_by", "group", "status")
        lines = [
            (
                r.rank,
                r.entry_id,
                r.name,
                r.points,
                r.games,
                r.wins,
                r.differential,
                r.average,
                *(r.tiebreaks.get(t) for t in view.tiebreaks),
                r.decided_by,
                view.groups.get(r.entry_id),
                r.status,
            )
            for r in view.rows
        ]
        return csv_response((*header, *view.tiebreaks, *tail), lines, f"standings-{event_id}.csv")
    kept = _rendered.get(view)
    if kept is not None:
        return cached_json(request, kept)
    read = StandingsRead(
        event_id=event_id,
        stage=view.stage,
        group=group,
        tiebreaks=list(view.tiebreaks),
        tiebreaks_from=view.tiebreaks_from,
        final=view.final,
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
                status=EntryStatus(r.status),
            )
            for r in view.rows
        ],
    )
    kept = _rendered[view] = rendered(read)
    return cached_json(request, kept)


@router.get(
    "/v1/events/{event_id}/crosstable",
    operation_id="get_crosstable",
    response_model=CrossTableRead,
    responses=CSV_CONTENT,
)
async def get_crosstable(
    event_id: str, session: SessionDep, stage: StageQuery = None, format: FormatQuery = "json"
) -> CrossTableRead | Response:
    """The stage's cross-table: every entry in standings order, whom it met each round, in which
    seat, with what result (`?format=csv`: cells like `+5w`, `=3b`, `-7w`, `+bye`)."""
    view = await export_svc.crosstable_view(session, event_id, stage)
    if format == "csv":
        ranks = {r.entry_id: r.rank for r in view.rows}
        lines = []
        for r in view.rows:
            by_round = {c.round: cell_text(c, ranks) for c in r.cells}
            lines.append((r.rank, r.name, r.points, *(by_round.get(n, "") for n in view.rounds)))
        header = ("rank", "name", "points", *(f"round {n}" for n in view.rounds))
        return csv_response(header, lines, f"crosstable-{event_id}.csv")
    return CrossTableRead(
        event_id=event_id,
        stage=view.stage.index if view.stage is not None else None,
        rounds=view.rounds,
        rows=[
            CrossRowRead(
                rank=r.rank,
                entry_id=r.entry_id,
                name=r.name,
                points=r.points,
                cells=[
                    CrossCellRead(
                        round=c.round,
                        seat=c.seat,
                        opponents=list(c.opponents),
                        result=c.result,
                        points=c.points,
                        place=c.place,
                    )
                    for c in r.cells
                ],
                versus=dict(r.versus),
            )
            for r in view.rows
        ],
    )


@router.get(
    "/v1/events/{event_id}/trf",
    operation_id="get_trf",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def get_trf(event_id: str, session: SessionDep, stage: StageQuery = None) -> PlainTextResponse:
    """The FIDE TRF-16 file of a 2-seat Swiss or round robin stage (409 for another format)."""
    text = await export_svc.trf_export(session, event_id, stage)
    return PlainTextResponse(
        text, headers={"Content-Disposition": f'attachment; filename="event-{event_id}.trf"'}
    )
