"""Webhooks (api.md "Webhooks"): an event's endpoints (its organizer), every event's (the admin),
and their delivery logs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from app.api.auth import Admin, Organizer
from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.deps import SessionDep
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, from_list, from_service
from app.api.schemas import (
    DeliveryPage,
    DeliveryRead,
    WebhookCreate,
    WebhookCreated,
    WebhookPage,
    WebhookRead,
)
from app.core.vocabulary import DeliveryStatus, LiveEventType, WebhookStatus
from app.db.models import Webhook, WebhookDelivery
from app.services import webhooks as svc

router = APIRouter(tags=["webhooks"])

LimitQuery = Annotated[int, Query(ge=1, le=200)]


def webhook_read(h: Webhook) -> WebhookRead:
    return WebhookRead(
        id=h.id,
        event_id=h.event_id,
        url=h.url,
        events=h.types,
        status=WebhookStatus(h.status),
        disabled_reason=h.disabled_reason,
        failing_since=h.failing_since,
        last_success_at=h.last_success_at,
        created_at=h.created_at,
    )


def delivery_read(d: WebhookDelivery) -> DeliveryRead:
    return DeliveryRead(
        id=d.id,
        webhook_id=d.webhook_id,
        event_id=d.outbox_id,
        type=LiveEventType(d.type),
        status=DeliveryStatus(d.status),
        attempts=d.attempts,
        last_status_code=d.last_status_code,
        last_error=d.last_error,
        next_attempt_at=d.next_attempt_at if d.status == DeliveryStatus.PENDING else None,
        last_attempt_at=d.last_attempt_at,
        delivered_at=d.delivered_at,
        created_at=d.created_at,
    )


def created(registered: svc.Registered, location: str) -> JSONResponse:
    body = WebhookCreated(**webhook_read(registered.hook).model_dump(), secret=registered.secret)
    return JSONResponse(body.model_dump(mode="json"), status_code=201, headers={"Location": location})


# --------------------------------------------------------------------------- one event's
@router.post(
    "/v1/events/{event_id}/webhooks",
    operation_id="create_event_webhook",
    status_code=201,
    response_model=WebhookCreated,
)
async def create_event_webhook(
    event_id: str, body: WebhookCreate, session: SessionDep, who: Organizer
) -> JSONResponse:
    """Register an endpoint told of this event's changes (organizer). The secret is in this answer
    only; deliveries are signed with it (Standard Webhooks)."""
    registered = await svc.register(session, who, event_id, body.url, body.events)
    return created(registered, f"/v1/events/{event_id}/webhooks/{registered.hook.id}")


@router.get(
    "/v1/events/{event_id}/webhooks",
    operation_id="list_event_webhooks",
    response_model=WebhookPage,
    responses=CSV_CONTENT,
)
async def list_event_webhooks(
    request: Request,
    event_id: str,
    session: SessionDep,
    who: Organizer,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The event's endpoints (organizer), disabled ones with the reason (`?format=csv`: one a line)."""
    fetch = from_list(await svc.list_hooks(session, event_id), lambda h: h.id, webhook_read)
    return await list_answer(
        request, format, WebhookPage, fetch, f"webhooks-{event_id}.csv", limit=limit, cursor=cursor
    )


@router.get(
    "/v1/events/{event_id}/webhooks/{hook_id}", operation_id="get_event_webhook", response_model=WebhookRead
)
async def get_event_webhook(event_id: str, hook_id: str, session: SessionDep, who: Organizer) -> WebhookRead:
    return webhook_read(await svc.get_hook(session, hook_id, event_id))


@router.delete(
    "/v1/events/{event_id}/webhooks/{hook_id}", operation_id="delete_event_webhook", status_code=204
)
async def delete_event_webhook(event_id: str, hook_id: str, session: SessionDep, who: Organizer) -> Response:
    """Delete an endpoint and its delivery log (organizer); nothing more is sent to it."""
    await svc.delete_hook(session, hook_id, event_id)
    return Response(status_code=204)


@router.get(
    "/v1/events/{event_id}/webhooks/{hook_id}/deliveries",
    operation_id="list_event_webhook_deliveries",
    response_model=DeliveryPage,
    responses=CSV_CONTENT,
)
async def list_event_webhook_deliveries(
    request: Request,
    event_id: str,
    hook_id: str,
    session: SessionDep,
    who: Organizer,
    limit: LimitQuery = 50,
    cursor: str | None = None,
    format: FormatQuery = "json",
) -> Response:
    """The delivery log, newest first (organizer): each delivery's status, attempts and last error
    (`?format=csv`: one delivery a line, every one from the cursor on)."""
    fetch = from_service(lambda n, after: svc.deliveries(session, hook_id, event_id, n, after), delivery_read)
    return await list_answer(
        request,
        format,
        DeliveryPage,
        fetch,
        f"deliveries-{hook_id}.csv",
        limit=limit,
        cursor=cursor,
    )


# --------------------------------------------------------------------------- every event's (admin)
@router.post("/v1/webhooks", operation_id="create_webhook", status_code=201, response_model=WebhookCreated)
async def create_webhook(body: WebhookCreate, session: SessionDep, admin: Admin) -> JSONResponse:
    """Register an endpoint told of every event's changes (admin). The secret is in this answer only."""
    registered = await svc.register(session, admin, None, body.url, body.events)
    return created(registered, f"/v1/webhooks/{registered.hook.id}")


@router.get("/v1/webhooks", operation_id="list_webhooks", response_model=WebhookPage, responses=CSV_CONTENT)
async def list_webhooks(
    request: Request,
    session: SessionDep,
    admin: Admin,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The endpoints told of every event (admin; `?format=csv`: one a line)."""
    fetch = from_list(await svc.list_hooks(session, None), lambda h: h.id, webhook_read)
    return await list_answer(request, format, WebhookPage, fetch, "webhooks.csv", limit=limit, cursor=cursor)


@router.get("/v1/webhooks/{hook_id}", operation_id="get_webhook", response_model=WebhookRead)
async def get_webhook(hook_id: str, session: SessionDep, admin: Admin) -> WebhookRead:
    """Any endpoint, of every event or of one (admin)."""
    return webhook_read(await svc.get_hook(session, hook_id))


@router.delete("/v1/webhooks/{hook_id}", operation_id="delete_webhook", status_code=204)
async def delete_webhook(hook_id: str, session: SessionDep, admin: Admin) -> Response:
    await svc.delete_hook(session, hook_id)
    return Response(status_code=204)


@router.get(
    "/v1/webhooks/{hook_id}/deliveries",
    operation_id="list_webhook_deliveries",
    response_model=DeliveryPage,
    responses=CSV_CONTENT,
)
async def list_webhook_deliveries(
    request: Request,
    hook_id: str,
    session: SessionDep,
    admin: Admin,
    limit: LimitQuery = 50,
    cursor: str | None = None,
    format: FormatQuery = "json",
) -> Response:
    """Any endpoint's delivery log, newest first (admin; `?format=csv`: one delivery a line)."""
    fetch = from_service(lambda n, after: svc.deliveries(session, hook_id, None, n, after), delivery_read)
    return await list_answer(
        request,
        format,
        DeliveryPage,
        fetch,
        f"deliveries-{hook_id}.csv",
        limit=limit,
        cursor=cursor,
    )
