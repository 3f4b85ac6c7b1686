"""An event's live stream: ``GET /v1/events/{id}/stream`` as Server-Sent Events (api.md "Live
updates"). The route checks the request and takes a place in the process's ``Hub``; the hub reads
the outbox; this module frames what it sends as SSE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from app.api.deps import SessionDep
from app.api.schemas import LiveEvent
from app.services.live import Hub, Item

router = APIRouter(prefix="/v1/events", tags=["live"])

MEDIA_TYPE = "text/event-stream"
# a message's data: a LiveEvent as JSON, its references into the document's components
# (LiveEventType is there)
_DATA = {
    k: v
    for k, v in LiveEvent.model_json_schema(ref_template="#/components/schemas/{model}").items()
    if k != "$defs"
}
# one message as a client parses the stream (the fields of text/event-stream, as OpenAPI 3.2's
# itemSchema and schemathesis read a stream's schema): `data` is the JSON text of a LiveEvent
_MESSAGE = {
    "type": "object",
    "description": "one message of the stream; `data` is a LiveEvent as JSON",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "the outbox id (send it back as Last-Event-ID)",
        },
        "event": {"type": "string", "description": "the LiveEvent's type (a LiveEventType, or stream.reset)"},
        "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": _DATA},
        "retry": {"type": "integer", "description": "how long a client waits before it reconnects, in ms"},
    },
}


def frame(item: Item) -> str:
    """One SSE message: ``id``, ``event`` and one ``data`` line of JSON; or a comment."""
    if item.batch:
        return "".join(frame(one) for one in item.batch)
    if item.comment is not None:
        return f": {item.comment}\n\n"
    data = item.encoded if item.encoded is not None else json.dumps(item.data, separators=(",", ":"))
    return f"id: {item.id}\nevent: {item.type}\ndata: {data}\n\n"


async def _frames(items: AsyncIterator[Item], retry_ms: int, event_id: str) -> AsyncIterator[str]:
    yield f"retry: {retry_ms}\n: live updates of event {event_id}\n\n"
    async for item in items:
        yield frame(item)


@router.get(
    "/{event_id}/stream",
    operation_id="stream_event",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "Server-Sent Events: each message's `id` is the outbox id, `event` the type, "
            "`data` a LiveEvent as JSON; comments are heartbeats",
            "content": {MEDIA_TYPE: {"schema": _MESSAGE}},
        }
    },
)
async def stream_event(
    request: Request,
    event_id: str,
    session: SessionDep,
    last_event_id: Annotated[
        str | None, Header(alias="Last-Event-ID", description="the id of the last message received")
    ] = None,
    since: Annotated[
        str | None,
        Query(max_length=20, description="as Last-Event-ID, for a first connection that cannot send headers"),
    ] = None,
) -> StreamingResponse:
    """The event's changes as they happen (public). A reconnecting client sends `Last-Event-ID` and
    receives what it missed; without it, the stream starts with the next change. Heartbeats (SSE
    comments) keep idle streams open. 429 past the streams one client may hold, 503 when the
    server holds its most."""
    hub: Hub = request.app.state.hub
    client = request.client.host if request.client is not None else "unknown"
    items = await hub.open(session, event_id, last_event_id if last_event_id is not None else since, client)
    return StreamingResponse(
        _frames(items, hub.limits.retry_ms, event_id),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
