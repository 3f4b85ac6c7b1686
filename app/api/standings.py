"""Standings, the cross-table and the TRF export of a stage (api.md "Standings", "Exports")."""

from __future__ import annotations

from typing import Annotated
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse

from app.api.caching import Rendered, cached, cached_json, rendered
from app.api.csv_io import CSV_CONTENT, FormatQuery, Notation, cached_csv, wants_csv
from app.api.deps import SessionDep
from app.api.schemas import (
    CrossCellRead,
    CrossRowRead,
    CrossTableRead,
    StandingsRead,
)
from app.core.crosstable import cell_text
from app.services import exports as export_svc
from app.services import standings as standings_svc

router = APIRouter(tags=["rounds"])

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
    if wants_csv(request, format):
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
        return cached_csv(request, (*header, *view.tiebreaks, *tail), lines, f"standings-{event_id}.csv")
    kept = _rendered.get(view)
    if kept is not None:
        return cached_json(request, kept)
    # the rows as plain dicts, validated in one pass of pydantic's core (a third of the cost of
    # building 2,048 models one by one with ``model_construct``), rendered as the model says
    read = StandingsRead.model_validate(
        {
            "event_id": event_id,
            "stage": view.stage,
            "group": group,
            "tiebreaks": view.tiebreaks,
            "tiebreaks_from": view.tiebreaks_from,
            "final": view.final,
            "rows": [
                {
                    "rank": r.rank,
                    "entry_id": r.entry_id,
                    "name": r.name,
                    "points": r.points,
                    "games": r.games,
                    "wins": r.wins,
                    "differential": r.differential,
                    "average": r.average,
                    "tiebreaks": r.tiebreaks,
                    "decided_by": r.decided_by,
                    "group": view.groups.get(r.entry_id),
                    "status": r.status,
                }
                for r in view.rows
            ],
        }
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
    request: Request,
    event_id: str,
    session: SessionDep,
    stage: StageQuery = None,
    format: FormatQuery = "json",
) -> Response:
    """The stage's cross-table: every entry in standings order, whom it met each round, in which
    seat, with what result (`?format=csv`: cells like `+5w`, `=3b`, `-7w`, `+bye`)."""
    view = await export_svc.crosstable_view(session, event_id, stage)
    if wants_csv(request, format):
        ranks = {r.entry_id: r.rank for r in view.rows}
        lines = []
        for r in view.rows:
            by_round = {c.round: Notation(cell_text(c, ranks)) for c in r.cells}
            lines.append((r.rank, r.name, r.points, *(by_round.get(n, "") for n in view.rounds)))
        header = ("rank", "name", "points", *(f"round {n}" for n in view.rounds))
        return cached_csv(request, header, lines, f"crosstable-{event_id}.csv")
    read = CrossTableRead(
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
    return cached(request, read)


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
