"""A league's seasons (api.md "Seasons"): one table across many events."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from app.api.auth import AnyOrganizer, SeasonOrganizer
from app.api.caching import cached
from app.api.csv_io import CSV_CONTENT, FormatQuery, cached_csv, list_answer, wants_csv
from app.api.deps import SessionDep
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_service
from app.api.schemas import (
    SeasonCreate,
    SeasonCreated,
    SeasonEventIn,
    SeasonEventRead,
    SeasonListed,
    SeasonPage,
    SeasonRead,
    SeasonResultRead,
    SeasonRowRead,
    SeasonStandingsRead,
)
from app.core.vocabulary import EventStatus
from app.services import seasons as svc

router = APIRouter(tags=["seasons"])


def season_read(view: svc.SeasonView) -> SeasonRead:
    s = view.season
    return SeasonRead(
        id=s.id,
        name=s.name,
        points=[float(p) for p in s.points],
        best_of=s.best_of,
        events=[
            SeasonEventRead(
                event_id=e.id, name=e.name, status=str(e.status), counted=e.status == EventStatus.FINISHED
            )
            for e in view.events
        ],
        created_at=s.created_at,
    )


@router.post("/v1/seasons", operation_id="create_season", status_code=201, response_model=SeasonCreated)
async def create_season(body: SeasonCreate, session: SessionDep, who: AnyOrganizer) -> JSONResponse:
    """Create a season (the admin or any event's organizer): its points table by place and,
    optionally, `best_of`. The season organizer's token is in this answer only."""
    season, token = await svc.create(session, body.name, body.points, body.best_of, who)
    created = SeasonCreated(**season_read(svc.SeasonView(season, [])).model_dump(), organizer_token=token)
    return JSONResponse(
        created.model_dump(mode="json"), status_code=201, headers={"Location": f"/v1/seasons/{season.id}"}
    )


def season_listed(summary: svc.SeasonSummary) -> SeasonListed:
    s = summary.season
    return SeasonListed(id=s.id, name=s.name, events=summary.events, created_at=s.created_at)


@router.get("/v1/seasons", operation_id="list_seasons", response_model=SeasonPage, responses=CSV_CONTENT)
async def list_seasons(
    request: Request,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The seasons, newest first, each with its count of attached events (`?format=csv`: one season
    a line, every one from the cursor on)."""
    fetch = from_service(lambda n, after: svc.listing(session, n, after), season_listed)
    return await list_answer(request, format, SeasonPage, fetch, "seasons.csv", limit=limit, cursor=cursor)


@router.get("/v1/seasons/{season_id}", operation_id="get_season", response_model=SeasonRead)
async def get_season(season_id: str, session: SessionDep) -> SeasonRead:
    return season_read(await svc.view(session, season_id))


@router.post("/v1/seasons/{season_id}/events", operation_id="attach_season_event", response_model=SeasonRead)
async def attach_event(
    season_id: str, body: SeasonEventIn, session: SessionDep, who: SeasonOrganizer
) -> SeasonRead:
    """Count an event in the season (its organizer, or the admin), as it is created or after;
    attaching it again changes nothing."""
    return season_read(await svc.attach(session, season_id, body.event_id))


@router.delete(
    "/v1/seasons/{season_id}/events/{event_id}", operation_id="detach_season_event", response_model=SeasonRead
)
async def detach_event(
    season_id: str, event_id: str, session: SessionDep, who: SeasonOrganizer
) -> SeasonRead:
    """Stop counting an event in the season (its organizer, or the admin)."""
    return season_read(await svc.detach(session, season_id, event_id))


SEASON_COLUMNS = ("rank", "player_id", "name", "points", "events", "decided_by")


@router.get(
    "/v1/seasons/{season_id}/standings",
    operation_id="get_season_standings",
    response_model=SeasonStandingsRead,
    responses=CSV_CONTENT,
)
async def get_season_standings(
    request: Request, season_id: str, session: SessionDep, format: FormatQuery = "json"
) -> Response:
    """The season's table across its finished events: points by place (shared places share their
    points), each player's best `best_of` results, ties by countback (`?format=csv`: one player a
    line, a column per event)."""
    t = await svc.table(session, season_id)
    if wants_csv(request, format):
        header = (*SEASON_COLUMNS, *t.counted)
        lines = []
        for r in t.rows:
            by_event = {x.event_id: x.points if x.counted else f"({x.points})" for x in r.results}
            lines.append(
                (
                    r.rank,
                    r.player_id,
                    r.name,
                    r.points,
                    r.events,
                    r.decided_by,
                    *(by_event.get(e, "") for e in t.counted),
                )
            )
        return cached_csv(request, header, lines, f"season-{season_id}.csv")
    read = SeasonStandingsRead(
        season_id=season_id,
        events=t.counted,
        items=[
            SeasonRowRead(
                rank=r.rank,
                player_id=r.player_id,
                name=r.name,
                points=r.points,
                events=r.events,
                results=[
                    SeasonResultRead(event_id=x.event_id, place=x.place, points=x.points, counted=x.counted)
                    for x in r.results
                ],
                decided_by=r.decided_by,
            )
            for r in t.rows
        ],
    )
    return cached(request, read)
