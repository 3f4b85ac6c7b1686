"""The live streams: an event's ``GET /v1/events/{id}/stream``, a season's ``GET
/v1/seasons/{id}/stream`` and a rating pool's ``GET /v1/ratings/{pool}/stream``, as Server-Sent Events
(api.md "Live updates"). A route checks the request and takes a place in the process's ``Hub``; the
hub reads the outbox; this module frames what it sends as SSE, the same for all."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from app.api.deps import SessionDep
from app.api.schemas import LiveEvent, RatingsLiveEvent, SeasonLiveEvent
from app.services.live import Hub, Item

router = APIRouter(tags=["live"])

MEDIA_TYPE = "text/event-stream"
LastEventId = Annotated[
    str | None, Header(alias="Last-Event-ID", description="the id of the last message received")
]
Since = Annotated[
    str | None,
    Query(max_length=20, description="as Last-Event-ID, for a first connection that cannot send headers"),
]


def _message(model: type[BaseModel]) -> dict[str, Any]:
    """One message as a client parses the stream (the fields of text/event-stream, as OpenAPI 3.2's
    itemSchema and schemathesis read a stream's schema): `data` is the JSON text of a ``model``, its
    references into the document's components (LiveEventType is there)."""
    name = model.__name__
    data = {
        k: v
        for k, v in model.model_json_schema(ref_template="#/components/schemas/{model}").items()
        if k != "$defs"
    }
    return {
        "type": "object",
        "description": f"one message of the stream; `data` is a {name} as JSON",
        "required": ["id", "event", "data"],
        "properties": {
            "id": {
                "type": "string",
                "pattern": "^[0-9]+$",
                "description": "the outbox id (send it back as Last-Event-ID)",
            },
            "event": {
                "type": "string",
                "description": f"the {name}'s type (a LiveEventType, or stream.reset)",
            },
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data},
            "retry": {
                "type": "integer",
                "description": "how long a client waits before it reconnects, in ms",
            },
        },
    }


def _streamed(model: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    return {
        200: {
            "description": "Server-Sent Events: each message's `id` is the outbox id, `event` the type, "
            f"`data` a {model.__name__} as JSON; comments are heartbeats",
            "content": {MEDIA_TYPE: {"schema": _message(model)}},
        }
    }


def frame(item: Item) -> str:
    """One SSE message: ``id``, ``event`` and one ``data`` line of JSON; or a comment."""
    if item.batch:
        return "".join(frame(one) for one in item.batch)
    if item.comment is not None:
        return f": {item.comment}\n\n"
    data = item.encoded if item.encoded is not None else json.dumps(item.data, separators=(",", ":"))
    return f"id: {item.id}\nevent: {item.type}\ndata: {data}\n\n"


async def _frames(items: AsyncIterator[Item], retry_ms: int, what: str) -> AsyncIterator[str]:
    yield f"retry: {retry_ms}\n: live updates of {what}\n\n"
    async for item in items:
        yield frame(item)


def _answer(items: AsyncIterator[Item], hub: Hub, what: str) -> StreamingResponse:
    return StreamingResponse(
        _frames(items, hub.limits.retry_ms, what),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


@router.get(
    "/v1/events/{event_id}/stream",
    operation_id="stream_event",
    response_class=StreamingResponse,
    responses=_streamed(LiveEvent),
)
async def stream_event(
    request: Request,
    event_id: str,
    session: SessionDep,
    last_event_id: LastEventId = None,
    since: Since = None,
) -> StreamingResponse:
    """The event's changes as they happen (public). A reconnecting client sends `Last-Event-ID` and
    receives what it missed; without it, the stream starts with the next change. Heartbeats (SSE
    comments) keep idle streams open. 429 past the streams one client may hold, 503 when the
    server holds its most."""
    hub: Hub = request.app.state.hub
    resume = last_event_id if last_event_id is not None else since
    items = await hub.open(session, event_id, resume, _client(request))
    return _answer(items, hub, f"event {event_id}")


@router.get(
    "/v1/seasons/{season_id}/stream",
    operation_id="stream_season",
    response_class=StreamingResponse,
    responses=_streamed(SeasonLiveEvent),
)
async def stream_season(
    request: Request,
    season_id: str,
    session: SessionDep,
    last_event_id: LastEventId = None,
    since: Since = None,
) -> StreamingResponse:
    """The season's changes as they happen (public): a `season.updated` when an event is attached
    or detached, or an attached event finishes, has its final standings corrected or is deleted.
    As an event's stream: `Last-Event-ID` resumes, heartbeats, the same limits."""
    hub: Hub = request.app.state.hub
    resume = last_event_id if last_event_id is not None else since
    items = await hub.open_season(session, season_id, resume, _client(request))
    return _answer(items, hub, f"season {season_id}")


@router.get(
    "/v1/ratings/{pool}/stream",
    operation_id="stream_rating_pool",
    response_class=StreamingResponse,
    responses=_streamed(RatingsLiveEvent),
)
async def stream_rating_pool(
    request: Request,
    pool: str,
    session: SessionDep,
    last_event_id: LastEventId = None,
    since: Since = None,
) -> StreamingResponse:
    """The pool's rating changes as they happen (public): a `ratings.updated` when its games are
    rated, it is recomputed, or a player's starting rating is taken at once. As an event's stream:
    `Last-Event-ID` resumes, heartbeats, the same limits; 404 for an unknown pool."""
    hub: Hub = request.app.state.hub
    resume = last_event_id if last_event_id is not None else since
    items = await hub.open_pool(session, pool, resume, _client(request))
    return _answer(items, hub, f"rating pool {pool}")
