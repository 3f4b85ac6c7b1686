"""An event's staff (api.md "Staff"): the organizer names scorekeepers and judges, each with a
token shown once, lists them (revoked ones too, so the audit trail's ``staff:<id>`` keeps a name)
and revokes them."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from app.api.auth import Organizer
from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.deps import SessionDep
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_list
from app.api.schemas import StaffCreate, StaffCreated, StaffPage, StaffRead
from app.core.access import Principal
from app.core.vocabulary import Role, StaffRole
from app.db.models import Staff
from app.services import staff as svc

router = APIRouter(tags=["events"])


def staff_read(member: Staff) -> StaffRead:
    actor = Principal(Role.STAFF, event_id=member.event_id, staff_id=member.id).actor
    return StaffRead(
        id=member.id,
        event_id=member.event_id,
        name=member.name,
        role=StaffRole(member.role),
        actor=actor,
        revoked=member.revoked_at is not None,
        created_at=member.created_at,
        revoked_at=member.revoked_at,
    )


@router.post(
    "/v1/events/{event_id}/staff", operation_id="create_staff", status_code=201, response_model=StaffCreated
)
async def create_staff(event_id: str, body: StaffCreate, session: SessionDep, who: Organizer) -> JSONResponse:
    """Name a scorekeeper or a judge of the event (organizer). The token is in this answer only;
    the member signs in with it (its own console link) and every change it makes is kept under its
    name."""
    member, token = await svc.issue(session, event_id, body.name, body.role, who)
    created = StaffCreated(**staff_read(member).model_dump(), token=token)
    return JSONResponse(
        created.model_dump(mode="json"),
        status_code=201,
        headers={"Location": f"/v1/events/{event_id}/staff/{member.id}"},
    )


@router.get(
    "/v1/events/{event_id}/staff", operation_id="list_staff", response_model=StaffPage, responses=CSV_CONTENT
)
async def list_staff(
    request: Request,
    event_id: str,
    session: SessionDep,
    who: Organizer,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The event's staff (organizer), in the order they were named, revoked members too
    (`?format=csv`: one member a line)."""
    fetch = from_list(await svc.list_staff(session, event_id), lambda m: m.id, staff_read)
    return await list_answer(
        request, format, StaffPage, fetch, f"staff-{event_id}.csv", limit=limit, cursor=cursor
    )


@router.delete("/v1/events/{event_id}/staff/{staff_id}", operation_id="revoke_staff", status_code=204)
async def revoke_staff(event_id: str, staff_id: str, session: SessionDep, who: Organizer) -> Response:
    """Revoke a member (organizer): its token is refused from now on; it stays listed, revoked."""
    await svc.revoke(session, event_id, staff_id, who)
    return Response(status_code=204)
