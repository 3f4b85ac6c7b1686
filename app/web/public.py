"""The public pages: events, an event, its projector view, its printed sheets, and the player's page
(whose token never reaches the server in a URL: the page's script sends it as the bearer header)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Literal

import segno
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse

from app.api.deps import MaybePrincipal, SessionDep
from app.core.access import Access, authorize
from app.core.errors import InvalidInput, NotFound, Unauthorized
from app.core.vocabulary import EventStatus, Role
from app.services import events as event_svc
from app.services import results as result_svc
from app.services import rite_of_command as roc_svc
from app.services.presets import bga as bga_svc
from app.services.presets import titan_arena as titan_svc
from app.services.reads import get_event, load_match, settings_of
from app.web import forms
from app.web.embeds import snippets
from app.web.render import HERE, PageRoute, page, site_url
from app.web.views import LIVE_TYPES, event_page, player_formats, seated

router = APIRouter(include_in_schema=False, route_class=PageRoute)

Paper = Annotated[Literal["a4", "letter"], Query()]
ORDER = {
    EventStatus.RUNNING: 0,
    EventStatus.REGISTRATION: 1,
    EventStatus.FINISHED: 2,
    EventStatus.CANCELLED: 3,
}


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, session: SessionDep) -> HTMLResponse:
    views, _ = await event_svc.list_events(session, 200, None)
    views.sort(key=lambda v: ORDER.get(EventStatus(v.event.status), 9))
    return page(request, "index.html", events=views)


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The player's pages' service worker (docs/web.md "Offline results"), served from the root so
    that its scope may be ``/e/``: a worker's scope can be no wider than the path it is served from,
    and every player's and slip's page lives under ``/e/``."""
    return FileResponse(
        HERE / "static" / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},  # a new worker is seen on the next visit
    )


@router.get("/e/{event_id}", response_class=HTMLResponse)
async def event(request: Request, event_id: str, session: SessionDep) -> HTMLResponse:
    p = await event_page(session, event_id, preset_views=True)
    embeds = snippets(site_url(request), event_id)
    return page(request, "event.html", p=p, live_types=LIVE_TYPES, embeds=embeds)


@router.get("/e/{event_id}/projector", response_class=HTMLResponse)
async def projector(
    request: Request,
    event_id: str,
    session: SessionDep,
    every: Annotated[int, Query(ge=1, le=600, description="seconds a page of rows stays up")] = 10,
) -> HTMLResponse:
    p = await event_page(session, event_id)
    return page(request, "projector.html", p=p, live_types=LIVE_TYPES, every=every)


@router.get("/e/{event_id}/print/pairings", response_class=HTMLResponse)
async def print_pairings(
    request: Request, event_id: str, session: SessionDep, paper: Paper = "a4"
) -> HTMLResponse:
    return page(request, "print_pairings.html", p=await event_page(session, event_id), paper=paper)


def qr_svg(url: str) -> str:
    """A QR code that scans: one unit a module in a ``viewBox`` (the page's CSS sets its printed
    size, never cropping it), the standard four-module quiet zone drawn white around it."""
    return str(segno.make(url, error="m").svg_inline(scale=1, border=4, omitsize=True, light="#fff"))


@router.get("/e/{event_id}/print/slips", response_class=HTMLResponse)
async def print_slips(
    request: Request, event_id: str, session: SessionDep, paper: Paper = "a4"
) -> HTMLResponse:
    p = await event_page(session, event_id)
    base = site_url(request)
    slips = [(t, f"{base}/e/{event_id}/m/{t.match.id}") for t in p.current if t.open]
    return page(
        request, "print_slips.html", p=p, paper=paper, slips=[(t, url, qr_svg(url)) for t, url in slips]
    )


@router.get("/e/{event_id}/print/scorecards", response_class=HTMLResponse)
async def print_scorecards(
    request: Request, event_id: str, session: SessionDep, paper: Paper = "a4"
) -> HTMLResponse:
    return page(request, "print_scorecards.html", p=await event_page(session, event_id), paper=paper)


@router.get("/e/{event_id}/me", response_class=HTMLResponse)
async def player(request: Request, event_id: str, session: SessionDep) -> HTMLResponse:
    """The player's page: a shell whose script reads the token from the fragment."""
    view = await event_svc.get_event_view(session, event_id)
    return page(request, "player.html", event=view.event, match_id="", live_types=LIVE_TYPES)


@router.get("/e/{event_id}/m/{match_id}", response_class=HTMLResponse)
async def match(request: Request, event_id: str, match_id: str, session: SessionDep) -> HTMLResponse:
    """A table's report page (the slip's QR code): the match, and the player's part once signed in."""
    view = await event_svc.get_event_view(session, event_id)
    mv = await result_svc.get_match(session, match_id)
    if mv.match.event_id != event_id:
        raise NotFound(f"match {match_id} of event {event_id} not found")
    return page(request, "player.html", event=view.event, match_id=match_id, live_types=LIVE_TYPES, mv=mv)


@router.get("/e/{event_id}/me/view", response_class=HTMLResponse)
async def player_view(
    request: Request, event_id: str, session: SessionDep, principal: MaybePrincipal, deck_size: str = ""
) -> HTMLResponse:
    """The player's part, for the page's script (the entry token as the bearer header); a Rite of
    Command player's deals for ``deck_size`` cards a player (the console's default unless given)."""
    if principal is None or principal.role != Role.ENTRY or principal.entry_id is None:
        raise Unauthorized("the entry's own token is required")
    authorize(principal, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event_id, entry_id=principal.entry_id)
    p = await event_page(session, event_id)
    entry = await event_svc.get_entry_view(session, event_id, principal.entry_id, principal)
    open_tables, played = seated(p, principal.entry_id)
    final_rules = None
    if p.event.preset == titan_svc.PRESET and p.event.status == EventStatus.RUNNING and p.stages:
        rules = await titan_svc.final_rules(session, event_id)  # a finalist answers on their own page
        final_rules = rules if principal.entry_id in rules["finalists"] else None
    try:
        size, deck_error = forms.deck_size(deck_size), ""
    except InvalidInput as exc:
        size, deck_error = roc_svc.DEFAULT_DECK, exc.detail or ""
    return page(
        request,
        "_player.html",
        p=p,
        me=entry.entry,
        open_tables=open_tables,
        played=played,
        final_rules=final_rules,
        formats=await player_formats(session, p, principal.entry_id, open_tables, size),
        deck_error=deck_error,
        now_utc=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
        mine=entry,
        body=lambda tb, choice: json.dumps(forms.result_body(tb.match, choice)),
        names=lambda tb: json.dumps({s["entry_id"]: s["name"] for s in tb.seats}),
    )


@router.post("/e/{event_id}/m/{match_id}/bga/tables")
async def player_bga_table(
    request: Request, event_id: str, match_id: str, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """A seated player's BGA table, from their page (the entry token as the bearer header, so
    another site cannot send it): the console's form read as the API's body (``allowed`` is the
    organizer's), then the API's own ``POST /v1/matches/{id}/bga/tables``; the match's tables as judged."""
    if principal is None:
        raise Unauthorized("the entry's own token is required")
    match = await load_match(session, match_id)
    if match.event_id != event_id:
        raise NotFound(f"match {match_id} of event {event_id} not found")
    seats = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
    keys = list(settings_of(await get_event(session, event_id)).table_settings)
    body = forms.bga_table_body(dict(await request.form()), seats, keys)
    judged = await bga_svc.record_table(session, match_id, principal, body)
    return JSONResponse({"tables": judged["tables"]})


@router.post("/e/{event_id}/m/{match_id}/result")
async def player_places(
    request: Request, event_id: str, match_id: str, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """A seated player's places at a table of three or more, from the player's page (the entry
    token as the bearer header, so another site cannot send it): the form's body as the console
    builds it, then the API's own report (a claim the other seats confirm)."""
    if principal is None:
        raise Unauthorized("the entry's own token is required")
    match = await load_match(session, match_id)
    if match.event_id != event_id:
        raise NotFound(f"match {match_id} of event {event_id} not found")
    body = forms.places_body(match, dict(await request.form()))
    view = await result_svc.report(session, match_id, principal, body)
    return JSONResponse({"status": str(view.match.status)})
