"""Events and their entries (api.md "Resources"): create, read, update, register, drop."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse

from app.api.deps import Admin, MaybePrincipal, SessionDep, hash_token
from app.api.idempotency import run_idempotent
from app.api.jobs import accepted
from app.api.schemas import (
    EntryCreate,
    EntryCreated,
    EntryRead,
    EventCreate,
    EventCreated,
    EventPage,
    EventRead,
    EventUpdate,
    JobAccepted,
)
from app.core.access import Access, authorize
from app.core.vocabulary import EventStatus
from app.services import events as svc
from app.services.events import EntryView, EventView

router = APIRouter(prefix="/v1/events", tags=["events"])


def event_read(view: EventView) -> EventRead:
    e = view.event
    return EventRead(
        id=e.id,
        name=e.name,
        game=e.game_key,
        status=e.status,
        preset=e.preset,
        settings=e.settings,
        seed_commitment=e.seed_commitment,
        seed=e.seed if e.status == EventStatus.FINISHED else None,
        version=e.version,
        entries=view.entries,
        created_at=e.created_at,
    )


def entry_read(view: EntryView) -> EntryRead:
    e = view.entry
    return EntryRead(
        id=e.id,
        event_id=e.event_id,
        player_id=e.player_id,
        name=e.name,
        status=e.status,
        characters=view.characters,
        sealed=view.sealed,
        group=e.group,
        organizer=e.organizer,
        tiebreak_value=e.tiebreak_value,
        created_at=e.created_at,
    )


@router.post("", operation_id="create_event", status_code=201, response_model=EventCreated)
async def create_event(
    request: Request, body: EventCreate, session: SessionDep, admin: Admin
) -> JSONResponse:
    """Create an event (admin). The organizer token is returned once; only its hash is kept."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        token = svc.new_token()
        event = await svc.create_event(
            session, body.name, body.game, body.preset, body.settings, body.seed, hash_token(token)
        )
        read = event_read(EventView(event, 0))
        headers = {"Location": f"/v1/events/{event.id}", "ETag": f'"{event.version}"'}
        return 201, EventCreated(**read.model_dump(), organizer_token=token), headers

    return await run_idempotent(request, session, admin, body, handler)


@router.get("", operation_id="list_events", response_model=EventPage)
async def list_events(
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: str | None = None,
) -> EventPage:
    """Events, newest first."""
    views, nxt = await svc.list_events(session, limit, cursor)
    return EventPage(items=[event_read(v) for v in views], next_cursor=nxt)


@router.get("/{event_id}", operation_id="get_event", response_model=EventRead)
async def get_event(event_id: str, session: SessionDep, response: Response) -> EventRead:
    view = await svc.get_event_view(session, event_id)
    response.headers["ETag"] = f'"{view.event.version}"'
    return event_read(view)


@router.patch("/{event_id}", operation_id="update_event", response_model=EventRead)
async def update_event(
    event_id: str,
    body: EventUpdate,
    session: SessionDep,
    principal: MaybePrincipal,
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> EventRead:
    """Rename an event or replace its settings overrides (organizer; `If-Match: <version>`)."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)
    view = await svc.update_event(session, event_id, if_match, body.name, body.settings)
    response.headers["ETag"] = f'"{view.event.version}"'
    return event_read(view)


@router.post("/{event_id}/entries", operation_id="create_entry", status_code=201, response_model=EntryCreated)
async def create_entry(
    request: Request, event_id: str, body: EntryCreate, session: SessionDep, principal: MaybePrincipal
) -> JSONResponse:
    """Register a player (organizer). The entry token is returned once; the player reports with it."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)

    async def handler() -> tuple[int, object, dict[str, str]]:
        token = svc.new_token()
        entry = await svc.add_entry(
            session,
            event_id,
            player_id=body.player_id,
            name=body.name,
            characters=body.characters,
            organizer=body.organizer,
            token_hash=hash_token(token),
        )
        view = await svc.registered(session, entry, principal)
        created = EntryCreated(**entry_read(view).model_dump(), entry_token=token)
        return 201, created, {"Location": f"/v1/events/{event_id}/entries/{entry.id}"}

    return await run_idempotent(request, session, principal, body, handler)


@router.get("/{event_id}/entries", operation_id="list_entries", response_model=list[EntryRead])
async def list_entries(event_id: str, session: SessionDep, principal: MaybePrincipal) -> list[EntryRead]:
    """The event's entries (Secret Wars packs are sealed but to the organizer until game 1)."""
    return [entry_read(v) for v in await svc.list_entries(session, event_id, principal)]


@router.get("/{event_id}/entries/{entry_id}", operation_id="get_entry", response_model=EntryRead)
async def get_entry(
    event_id: str, entry_id: str, session: SessionDep, principal: MaybePrincipal
) -> EntryRead:
    return entry_read(await svc.get_entry_view(session, event_id, entry_id, principal))


@router.delete("/{event_id}/entries/{entry_id}", operation_id="drop_entry", response_model=EntryRead)
async def drop_entry(
    event_id: str, entry_id: str, session: SessionDep, principal: MaybePrincipal
) -> EntryRead:
    """Drop an entry (the organizer, or the entry itself). Its results stay; it is paired no more."""
    authorize(principal, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event_id, entry_id=entry_id)
    entry = await svc.drop_entry(session, event_id, entry_id)
    return entry_read(await svc.registered(session, entry, principal))


@router.post(
    "/{event_id}/integrity-check",
    operation_id="check_event_integrity",
    status_code=202,
    response_model=JobAccepted,
)
async def integrity_check(event_id: str, session: SessionDep, principal: MaybePrincipal) -> JSONResponse:
    """Audit the event's stored data in a background job (organizer): 202 with the job's id."""
    authorize(principal, Access.ORGANIZER, event_id=event_id)
    return accepted(await svc.request_integrity_check(session, event_id))
