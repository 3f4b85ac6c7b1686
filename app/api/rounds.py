"""Starting an event, its rounds (paired, read, undone, swapped) and closing a stage (api.md
"Start, rounds and advance")."""

from __future__ import annotations

from typing import Annotated, Literal
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Path, Query, Request, Response

from app.api.auth import Judge, Organizer
from app.api.caching import Rendered, cached, cached_json, json_body, rendered
from app.api.csv_io import CSV_CONTENT, FormatQuery, cached_csv, wants_csv
from app.api.deps import SessionDep
from app.api.events import event_read
from app.api.idempotency import run_idempotent
from app.api.matches import match_read
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, page
from app.api.schemas import (
    LifecycleRead,
    RoundCreate,
    RoundPage,
    RoundRead,
    SwapIn,
    UndoneRound,
)
from app.services import lifecycle
from app.services import rounds as round_svc
from app.services.events import EventView
from app.services.formats.explanations import PER_PAIR
from app.services.offload import collector_paused
from app.services.rounds import RoundView

router = APIRouter(tags=["rounds"])


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
    who: Organizer,
    not_checked_in: Annotated[
        Literal["drop", "refuse"],
        Query(description="with check-in: drop the entries not checked in, or refuse to start (409)"),
    ] = "drop",
) -> Response:
    """Start the event (organizer): draw tie-break values, groups and the first round or schedule.

    A schedule search runs as a job (`job_id`)."""
    # as pairing a round: a 10,000-entry start, its rows and its answer are millions of objects,
    # none in a cycle; the answer is rendered in one pass (``json_body``)
    with collector_paused():
        answer = json_body(lifecycle_read(await lifecycle.start(session, event_id, who, not_checked_in)))
    return Response(answer, media_type="application/json")


@router.post(
    "/v1/events/{event_id}/rounds", operation_id="create_round", status_code=201, response_model=RoundRead
)
async def create_round(
    request: Request,
    event_id: str,
    session: SessionDep,
    who: Organizer,
    body: RoundCreate | None = None,
) -> Response:
    """Pair the next round of the current stage (organizer); with `tables`, create exactly those.

    409 while a match of the current round is unreported."""

    async def handler() -> tuple[int, object, dict[str, str]]:
        # a 10,000-entry round, its rows and its answer are millions of objects, none in a cycle
        with collector_paused():
            view = await lifecycle.pair(session, event_id, body.tables if body else None)
            answer = round_read(view)
        return 201, answer, {"Location": f"/v1/events/{event_id}/rounds/{view.round.number}"}

    return await run_idempotent(request, session, who, body.model_dump() if body else {}, handler)


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
    if wants_csv(request, format):
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
        return cached_csv(request, ROUND_COLUMNS, lines, f"pairings-{event_id}.csv")
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
    who: Organizer,
) -> UndoneRound:
    """Undo the last round (organizer) while none of its matches is reported, to pair it again;
    409 naming the reported matches. Kept in the event's history."""
    return UndoneRound(**await lifecycle.undo_round(session, event_id, number, who))


@router.post(
    "/v1/events/{event_id}/rounds/{number}/swap", operation_id="swap_entries", response_model=RoundRead
)
async def swap_entries(
    event_id: str,
    number: Annotated[int, Path(ge=1, le=1_000_000)],
    body: SwapIn,
    session: SessionDep,
    who: Judge,
) -> RoundRead:
    """Swap two entries between unreported tables of a round, or their seats at one table
    (the organizer or a judge). Kept in the event's history and in the round's `swaps`."""
    a, b = body.entries
    return round_read(await lifecycle.swap_entries(session, event_id, number, a, b, who))


@router.post("/v1/events/{event_id}/advance", operation_id="advance_event", response_model=LifecycleRead)
async def advance_event(event_id: str, session: SessionDep, who: Organizer) -> LifecycleRead:
    """Close the current stage and seed the next from its standings (organizer); after the last
    stage the event is finished and its seed revealed."""
    return lifecycle_read(await lifecycle.close_stage(session, event_id))
