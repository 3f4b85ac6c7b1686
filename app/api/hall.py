"""Announcements and the round clock of an event (api.md "Announcements", "The round clock")."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from app.api.auth import Judge, Organizer
from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.deps import SessionDep
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_list
from app.api.schemas import AnnouncementCreate, AnnouncementPage, AnnouncementRead, ClockIn, ClockRead
from app.core.clock import ClockAction
from app.db.models import Announcement
from app.services import hall as svc

router = APIRouter(tags=["events"])


def announcement_read(a: Announcement) -> AnnouncementRead:
    return AnnouncementRead(id=a.id, event_id=a.event_id, text=a.text, by=a.actor, created_at=a.created_at)


def clock_read(event_id: str, view: svc.ClockView) -> ClockRead:
    c = view.clock
    return ClockRead(
        event_id=event_id,
        state=c.state.value,
        round=c.round,
        duration_s=c.duration_s,
        ends_at=c.ends_at,
        remaining_s=round(view.remaining_s, 3),
        server_time=view.now,
        tables=view.table_ends_at(),
    )


@router.post(
    "/v1/events/{event_id}/announcements",
    operation_id="post_announcement",
    status_code=201,
    response_model=AnnouncementRead,
)
async def post_announcement(
    event_id: str, body: AnnouncementCreate, session: SessionDep, who: Organizer
) -> JSONResponse:
    """Post a short message to the projector and every open page of the event (organizer); it is
    announced on the live stream and to webhooks (`announcement.posted`)."""
    read = announcement_read(await svc.announce(session, event_id, body.text, who))
    return JSONResponse(
        read.model_dump(mode="json"),
        status_code=201,
        headers={"Location": f"/v1/events/{event_id}/announcements"},
    )


@router.get(
    "/v1/events/{event_id}/announcements",
    operation_id="list_announcements",
    response_model=AnnouncementPage,
    responses=CSV_CONTENT,
)
async def list_announcements(
    request: Request,
    event_id: str,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The event's announcements, newest first (`?format=csv`: one a line)."""
    fetch = from_list(await svc.announcements(session, event_id), lambda a: a.id, announcement_read)
    return await list_answer(
        request, format, AnnouncementPage, fetch, f"announcements-{event_id}.csv", limit=limit, cursor=cursor
    )


@router.post("/v1/events/{event_id}/clock", operation_id="act_on_clock", response_model=ClockRead)
async def act_on_clock(event_id: str, body: ClockIn, session: SessionDep, who: Judge) -> ClockRead:
    """Start, pause, resume, extend or stop the round's clock (the organizer or a judge); `start`
    takes the event's `game_minutes` when `seconds` is not given; `extend` with `match_id` gives one
    table extra time. Each action, and time's up, is announced on the stream (`clock.*`)."""
    view = await svc.act_on_clock(
        session, event_id, ClockAction(body.action), who, seconds=body.seconds, match_id=body.match_id
    )
    return clock_read(event_id, view)


@router.get("/v1/events/{event_id}/clock", operation_id="get_clock", response_model=ClockRead)
async def get_clock(event_id: str, session: SessionDep, response: Response) -> ClockRead:
    """The round's clock as the server reads it now (`server_time`): count down from `remaining_s`."""
    response.headers["Cache-Control"] = "no-store"
    return clock_read(event_id, await svc.read_clock(session, event_id))
