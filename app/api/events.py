"""Events and their entries (api.md "Resources"): create, read, update, register, drop."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import RootModel, ValidationError
from starlette.datastructures import UploadFile as StarletteUpload
from starlette.formparsers import MultiPartException

from app.api.auth import Admin, JudgeOrOwnEntry, Organizer, OrganizerOrOwnEntry
from app.api.csv_io import CSV_CONTENT, MAX_ROWS, FormatQuery, list_answer, read_entry_rows
from app.api.deps import MaybePrincipal, SessionDep
from app.api.idempotency import run_idempotent
from app.api.jobs import accepted
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_list, from_service
from app.api.schemas import (
    CheckInRead,
    EntryCreate,
    EntryCreated,
    EntryPage,
    EntryRead,
    EventCreate,
    EventCreated,
    EventPage,
    EventRead,
    EventUpdate,
    EventWinner,
    ForbiddenPairs,
    HistoryEntryRead,
    HistoryPage,
    IdentityEvent,
    IdentityRead,
    JobAccepted,
)
from app.core.errors import DomainError, InvalidInput, Problem
from app.core.vocabulary import EntryStatus, EventStatus
from app.services import events as svc
from app.services.events import EntryView, EventView
from app.services.history import event_history
from app.services.offload import TURN, in_turns
from app.services.tokens import hash_token, new_token

router = APIRouter(prefix="/v1/events", tags=["events"])


def event_read(view: EventView) -> EventRead:
    e = view.event
    return EventRead(
        id=e.id,
        name=e.name,
        game=e.game_key,
        status=EventStatus(e.status),
        preset=e.preset,
        settings=e.settings,
        seed_commitment=e.seed_commitment,
        seed=e.seed if e.status == EventStatus.FINISHED else None,
        version=e.version,
        entries=view.entries,
        created_at=e.created_at,
        current_stage=view.summary.current_stage,
        current_round=view.summary.current_round,
        winner=(
            EventWinner(entry_id=view.summary.winner.id, name=view.summary.winner.name)
            if view.summary.winner is not None
            else None
        ),
    )


def _entry_fields(view: EntryView) -> dict[str, Any]:
    e = view.entry
    return dict(
        id=e.id,
        event_id=e.event_id,
        player_id=e.player_id,
        name=e.name,
        status=EntryStatus(e.status),
        characters=view.characters,
        sealed=view.sealed,
        group=e.group,
        organizer=e.organizer,
        tiebreak_value=e.tiebreak_value,
        rating=e.rating_at_entry,
        seed=e.seed,
        club=e.club,
        checked_in=e.checked_in_at is not None,
        matched_by=e.matched_by,
        created_at=e.created_at,
    )


def entry_read(view: EntryView) -> EntryRead:
    return EntryRead(**_entry_fields(view))


def entry_created(view: EntryView, token: str) -> EntryCreated:
    """A new entry with its token, shown once."""
    return EntryCreated(**_entry_fields(view), entry_token=token)


# a list of new entries renders in one pass of pydantic's serializer (app/api/caching.py json_body)
EntriesCreated = RootModel[list[EntryCreated]]


@router.post("", operation_id="create_event", status_code=201, response_model=EventCreated)
async def create_event(request: Request, body: EventCreate, session: SessionDep, admin: Admin) -> Response:
    """Create an event (admin). The organizer token is returned once; only its hash is kept. With
    `season_id`, the event is counted in that season from the start (as `POST
    /v1/seasons/{id}/events` would)."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        token = new_token()
        event = await svc.create_event(
            session,
            body.name,
            body.game,
            body.preset,
            body.settings,
            body.seed,
            hash_token(token),
            body.season_id,
        )
        read = event_read(EventView(event, 0))
        headers = {"Location": f"/v1/events/{event.id}", "ETag": f'"{event.version}"'}
        return (
            201,
            EventCreated(**read.model_dump(), organizer_token=token, season_id=body.season_id),
            headers,
        )

    return await run_idempotent(request, session, admin, body, handler)


@router.get("", operation_id="list_events", response_model=EventPage, responses=CSV_CONTENT)
async def list_events(
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: str | None = None,
    format: FormatQuery = "json",
) -> Response:
    """Events, newest first (`?format=csv`: one event a line, every one from the cursor on)."""
    fetch = from_service(lambda n, after: svc.list_events(session, n, after), event_read)
    return await list_answer(request, format, EventPage, fetch, "events.csv", limit=limit, cursor=cursor)


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
    who: Organizer,
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> EventRead:
    """Rename an event or replace its settings overrides (organizer; `If-Match: <version>`)."""
    view = await svc.update_event(session, event_id, if_match, body.name, body.settings)
    response.headers["ETag"] = f'"{view.event.version}"'
    return event_read(view)


# The JSON registration body, one entry or a list, each the ``EntryCreate`` component (the route reads
# the body itself, so that the same route still takes the CSV that older scripts send, api.md
# "Entries"); a CSV has its own operation, ``create_entries_csv``: a form upload, which every client
# generator can express (``text/csv`` is not one that openapi-python-client can).
ENTRY_REF = {"$ref": "#/components/schemas/EntryCreate"}
_ENTRY_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"oneOf": [ENTRY_REF, {"type": "array", "items": ENTRY_REF, "maxItems": MAX_ROWS}]}
            },
        },
    }
}
_CSV_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": "a CSV: a header line naming the columns `name` (or "
                            "`player_id`), `external_id`, `rating`, `seed`, `club` (or `team`), "
                            "`characters` (separated by `|`), `organizer`; then one player a line",
                        }
                    },
                    "additionalProperties": False,
                }
            }
        },
    }
}


def _checked(rows: list[Any], where: str, start: int = 0) -> tuple[list[EntryCreate], list[Problem]]:
    """Rows ``start``, ``start + 1``, … as EntryCreate, and a problem for each bad row and field."""
    problems: list[Problem] = []
    out: list[EntryCreate] = []
    for i, row in enumerate(rows, start):
        loc: tuple[str | int, ...] = (
            (where,) if where == "body" else (where, i + 2) if where == "csv" else (where, i)
        )
        if isinstance(row, dict) and "__extra__" in row:
            problems.append(Problem(loc, "the line has more cells than the header"))
            continue
        if isinstance(row, dict) and not row:
            problems.append(Problem(loc, "the row is empty"))
            continue
        try:
            out.append(EntryCreate.model_validate(row))
        except ValidationError as exc:
            for err in exc.errors():
                field = tuple(str(x) for x in err.get("loc", ()))
                problems.append(Problem((*loc, *field), err.get("msg", "invalid")))
    return out, problems


def _refuse(problems: list[Problem]) -> None:
    if problems:
        rows_bad = len({p.loc[:2] for p in problems})
        raise InvalidInput(f"{rows_bad} bad row(s); nothing was registered", problems)


def _validated(rows: list[Any], where: str) -> list[EntryCreate]:
    """Every row as an EntryCreate, or one InvalidInput naming every bad row and field."""
    out, problems = _checked(rows, where)
    _refuse(problems)
    return out


async def _validated_rows(rows: list[Any], where: str) -> list[EntryCreate]:
    """``_validated`` by chunks, the event loop serving other requests between two."""
    out: list[EntryCreate] = []
    problems: list[Problem] = []
    for lo in range(0, len(rows), TURN):
        good, bad = _checked(rows[lo : lo + TURN], where, lo)
        out.extend(good)
        problems.extend(bad)
        await asyncio.sleep(0)
    _refuse(problems)
    return out


def _spec(body: EntryCreate) -> svc.EntrySpec:
    return svc.EntrySpec(
        player_id=body.player_id,
        name=body.name,
        external_id=body.external_id,
        rating=body.rating,
        seed=body.seed,
        club=body.club,
        characters=tuple(body.characters),
        organizer=body.organizer,
    )


MAX_BODY = 5_000_000


def _text(raw: bytes, where: str) -> str:
    """A registration body as text: at most 5 MB of UTF-8 (a byte order mark is dropped)."""
    if len(raw) > MAX_BODY:
        raise InvalidInput("the body is too large", [Problem((where,), "at most 5 MB")])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput("the body is not UTF-8", [Problem((where,), "must be UTF-8 text")]) from None


async def _entry_payload(request: Request) -> tuple[str, Any]:
    """The registration body: ("one", an object), ("rows", a JSON list) or ("csv", rows of a CSV sent
    as ``text/csv``, as before the CSV had its own operation)."""
    text = _text(await request.body(), "body")
    kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if kind == "text/csv":
        return "csv", read_entry_rows(text)
    try:
        data = json.loads(text)
    except ValueError:
        raise InvalidInput(
            "the body is not JSON", [Problem(("body",), "must be a JSON object or list")]
        ) from None
    if isinstance(data, list):
        if len(data) > MAX_ROWS:
            raise InvalidInput("too many rows", [Problem(("body",), f"at most {MAX_ROWS} rows")])
        return "rows", data
    if isinstance(data, dict):
        return "one", data
    raise InvalidInput("the body is not an entry", [Problem(("body",), "must be a JSON object or list")])


async def _register(
    request: Request, event_id: str, session: SessionDep, who: Any, kind: str, payload: Any
) -> Response:
    """One registration (``one``) or many, all or nothing (``rows`` of a list, ``csv`` of a file)."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        if kind == "one":
            body = _validated([payload], "body")[0]
            token = new_token()
            entry = await svc.add_entry(session, event_id, _spec(body), hash_token(token))
            view = await svc.registered(session, entry, who)
            created = entry_created(view, token)
            return 201, created, {"Location": f"/v1/events/{event_id}/entries/{entry.id}"}
        bodies = await _validated_rows(payload, kind)
        tokens = [new_token() async for _ in in_turns(bodies)]
        specs = [_spec(b) async for b in in_turns(bodies)]
        hashes = [hash_token(t) async for t in in_turns(tokens)]
        entries = await svc.add_entries(session, event_id, specs, hashes, kind)
        views = await svc.registered_many(session, event_id, entries, who)
        answers = [entry_created(v, t) async for v, t in in_turns(zip(views, tokens, strict=True))]
        return 201, EntriesCreated(answers), {}

    return await run_idempotent(request, session, who, payload, handler)


@router.post(
    "/{event_id}/entries",
    operation_id="create_entry",
    status_code=201,
    response_model=EntryCreated | list[EntryCreated],
    openapi_extra=_ENTRY_BODY,
)
async def create_entry(request: Request, event_id: str, session: SessionDep, who: Organizer) -> Response:
    """Register a player (organizer), or many at once as a JSON list, all or nothing: a 422 names
    every bad row. Entry tokens are returned once; players report with them. A CSV file registers
    with `POST /v1/events/{event_id}/entries/csv`."""
    kind, payload = await _entry_payload(request)
    return await _register(request, event_id, session, who, kind, payload)


@router.post(
    "/{event_id}/entries/csv",
    operation_id="create_entries_csv",
    status_code=201,
    response_model=list[EntryCreated],
    openapi_extra=_CSV_BODY,
)
async def create_entries_csv(
    request: Request, event_id: str, session: SessionDep, who: Organizer
) -> Response:
    """Register the players of a CSV file (organizer; a form upload, `file`), all or nothing: a 422
    names every bad line and cell (`loc` `["csv", line, column]`). Entry tokens are returned once."""
    try:
        form = await request.form(max_files=1, max_fields=1)
    except MultiPartException as exc:
        raise DomainError(f"the form cannot be read: {exc.message}") from None
    part = form.get("file")
    if part is None:
        raise InvalidInput(
            "no CSV file", [Problem(("body", "file"), "a CSV file is required (the form's `file`)")]
        )
    # a file part, or the same text sent as a plain field (a client that gives the file no name)
    raw = await part.read(MAX_BODY + 1) if isinstance(part, StarletteUpload) else part.encode()
    rows = read_entry_rows(_text(raw, "file"))
    return await _register(request, event_id, session, who, "csv", rows)


@router.get(
    "/{event_id}/entries", operation_id="list_entries", response_model=EntryPage, responses=CSV_CONTENT
)
async def list_entries(
    request: Request,
    event_id: str,
    session: SessionDep,
    principal: MaybePrincipal,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The event's entries, in registration order (Secret Wars packs are sealed but to the organizer
    until game 1; `?format=csv`: one entry a line)."""
    views = await svc.list_entries(session, event_id, principal)
    fetch = from_list(views, lambda v: v.entry.id, entry_read)
    return await list_answer(
        request, format, EntryPage, fetch, f"entries-{event_id}.csv", limit=limit, cursor=cursor
    )


@router.get("/{event_id}/entries/{entry_id}", operation_id="get_entry", response_model=EntryRead)
async def get_entry(
    event_id: str, entry_id: str, session: SessionDep, principal: MaybePrincipal
) -> EntryRead:
    return entry_read(await svc.get_entry_view(session, event_id, entry_id, principal))


@router.delete("/{event_id}/entries/{entry_id}", operation_id="drop_entry", response_model=EntryRead)
async def drop_entry(event_id: str, entry_id: str, session: SessionDep, who: JudgeOrOwnEntry) -> EntryRead:
    """Drop an entry (the organizer, a judge, or the entry itself). Its results stay; it is paired no more.

    Where the stage's `on_drop` is `resign` (the Board Game Arena presets), its open games are lost:
    each is recorded as a forfeit won by the others (`violation`: scored as its violation)."""
    entry = await svc.drop_entry(session, event_id, entry_id, who)
    return entry_read(await svc.registered(session, entry, who))


@router.post(
    "/{event_id}/integrity-check",
    operation_id="check_event_integrity",
    status_code=202,
    response_model=JobAccepted,
)
async def integrity_check(event_id: str, session: SessionDep, who: Organizer) -> JSONResponse:
    """Audit the event's stored data in a background job (organizer): 202 with the job's id."""
    return accepted(await svc.request_integrity_check(session, event_id))


@router.post(
    "/{event_id}/entries/{entry_id}/check-in", operation_id="check_in_entry", response_model=CheckInRead
)
async def check_in(
    event_id: str, entry_id: str, session: SessionDep, who: OrganizerOrOwnEntry
) -> CheckInRead:
    """Check an entry in before the start (the organizer, or the entry's own token); needs
    `check_in: true` in the settings. At the start, entries not checked in are dropped."""
    e = await svc.check_in(session, event_id, entry_id, True)
    return CheckInRead(entry_id=e.id, checked_in=True, checked_in_at=e.checked_in_at)


@router.delete(
    "/{event_id}/entries/{entry_id}/check-in", operation_id="undo_check_in", response_model=CheckInRead
)
async def undo_check_in(
    event_id: str, entry_id: str, session: SessionDep, who: OrganizerOrOwnEntry
) -> CheckInRead:
    """Take a check-in back (the organizer, or the entry itself) before the start."""
    e = await svc.check_in(session, event_id, entry_id, False)
    return CheckInRead(entry_id=e.id, checked_in=False, checked_in_at=None)


@router.post(
    "/{event_id}/entries/{entry_id}/token", operation_id="reissue_entry_token", response_model=EntryCreated
)
async def reissue_entry_token(
    event_id: str, entry_id: str, session: SessionDep, who: Organizer
) -> EntryCreated:
    """A new entry token for one entry (organizer): its personal link was lost or passed on. The old
    token stops working at once; the new one is shown once, in `entry_token`."""
    token = new_token()
    entry = await svc.reissue_entry_token(session, event_id, entry_id, hash_token(token), who)
    return EntryCreated(
        **entry_read(await svc.registered(session, entry, who)).model_dump(), entry_token=token
    )


def identity_read(view: svc.IdentityView) -> IdentityRead:
    return IdentityRead(
        entry_id=view.entry.id,
        player_id=view.player.id,
        name=view.player.name,
        external_id=view.player.external_id,
        matched_by=view.entry.matched_by,
        other_events=[IdentityEvent(event_id=e, name=n, entry_id=x) for e, n, x in view.other_events],
    )


@router.get(
    "/{event_id}/entries/{entry_id}/identity", operation_id="get_entry_identity", response_model=IdentityRead
)
async def get_identity(event_id: str, entry_id: str, session: SessionDep, who: Organizer) -> IdentityRead:
    """The entry's player, how the registration matched it, and the player's other events (organizer)."""
    return identity_read(await svc.identity_view(session, event_id, entry_id))


@router.delete(
    "/{event_id}/entries/{entry_id}/identity",
    operation_id="split_entry_identity",
    response_model=IdentityRead,
)
async def split_identity(event_id: str, entry_id: str, session: SessionDep, who: Organizer) -> IdentityRead:
    """Undo the match to an existing player (organizer, during registration): the entry gets a new
    player of its own. Kept in the event's history."""
    return identity_read(await svc.split_identity(session, event_id, entry_id, who))


@router.post("/{event_id}/cancel", operation_id="cancel_event", response_model=EventRead)
async def cancel_event(event_id: str, session: SessionDep, who: Organizer) -> EventRead:
    """Cancel the event (organizer): nothing more is paired or registered; its results stay."""
    return event_read(await svc.cancel_event(session, event_id, who))


@router.delete("/{event_id}", operation_id="delete_event", status_code=204)
async def delete_event(event_id: str, session: SessionDep, who: Organizer) -> Response:
    """Delete an event that never started, with its entries (organizer); 409 once it has started."""
    await svc.delete_event(session, event_id)
    return Response(status_code=204)


@router.get("/{event_id}/forbidden-pairs", operation_id="get_forbidden_pairs", response_model=ForbiddenPairs)
async def get_forbidden_pairs(event_id: str, session: SessionDep) -> ForbiddenPairs:
    return ForbiddenPairs(pairs=await svc.get_forbidden_pairs(session, event_id))


@router.put("/{event_id}/forbidden-pairs", operation_id="put_forbidden_pairs", response_model=ForbiddenPairs)
async def put_forbidden_pairs(
    event_id: str, body: ForbiddenPairs, session: SessionDep, who: Organizer
) -> ForbiddenPairs:
    """Replace the pairs of entries that are never paired together (organizer)."""
    return ForbiddenPairs(pairs=await svc.put_forbidden_pairs(session, event_id, body.pairs, who))


@router.get(
    "/{event_id}/history", operation_id="get_event_history", response_model=HistoryPage, responses=CSV_CONTENT
)
async def get_history(
    request: Request,
    event_id: str,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The event's audit trail, oldest first: undone rounds, swaps, identity splits, check-in drops,
    cancellation (`?format=csv`: one change a line, its payload as JSON text)."""
    fetch = from_list(
        list(enumerate(await event_history(session, event_id))),
        lambda p: p[0],
        lambda p: HistoryEntryRead(
            action=p[1].action, actor=p[1].actor, payload=p[1].payload, at=p[1].created_at
        ),
    )
    return await list_answer(
        request, format, HistoryPage, fetch, f"history-{event_id}.csv", limit=limit, cursor=cursor
    )
