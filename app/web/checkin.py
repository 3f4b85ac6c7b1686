"""Check-in at the door (docs/web.md "Check-in at the door"): the QR code on a player's link card
opens ``/e/{event_id}/check-in#token=…``, the player's own token in the fragment (never sent in a
URL). Opening it changes nothing: the page's script shows who the token is and one button, and the
tap sends the API's own check-in (``POST /v1/events/{id}/entries/{entry_id}/check-in``) with the
token as the bearer header, so another site cannot check anyone in and a prefetch or a scanner's
preview checks nobody in."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.api.deps import MaybePrincipal, SessionDep
from app.core.access import Access, authorize
from app.core.errors import Unauthorized
from app.core.vocabulary import EntryStatus, EventStatus, Role
from app.services import events as event_svc
from app.services.reads import settings_of
from app.web.render import PageRoute, page

router = APIRouter(include_in_schema=False, route_class=PageRoute)


@router.get("/e/{event_id}/check-in", response_class=HTMLResponse)
async def door(request: Request, event_id: str, session: SessionDep) -> HTMLResponse:
    """The check-in page: a shell whose script reads the token from the fragment."""
    view = await event_svc.get_event_view(session, event_id)
    return page(request, "check_in.html", event=view.event)


@router.get("/e/{event_id}/check-in/view", response_class=HTMLResponse)
async def door_view(
    request: Request, event_id: str, session: SessionDep, principal: MaybePrincipal
) -> HTMLResponse:
    """Who the token is and whether the tap can check them in (the entry token as the bearer header)."""
    if principal is None or principal.role != Role.ENTRY or principal.entry_id is None:
        raise Unauthorized("the entry's own token is required")
    authorize(principal, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event_id, entry_id=principal.entry_id)
    event = (await event_svc.get_event_view(session, event_id)).event
    me = (await event_svc.get_entry_view(session, event_id, principal.entry_id, principal)).entry
    taking = event.status == EventStatus.REGISTRATION and settings_of(event).check_in
    return page(
        request, "_check_in.html", event=event, me=me, open=taking and me.status == EntryStatus.ACTIVE
    )
