"""Live updates and webhooks (api.md "Live updates", "Webhooks")."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
)

from app.api.schemas.common import Strict
from app.core.vocabulary import (
    DeliveryStatus,
    LiveEventType,
    WebhookStatus,
)
from app.core.webhooks import URL_PATTERN


class LiveEvent(BaseModel):
    """One change of an event, as a stream's `data:` and a webhook's body carry it."""

    id: int = Field(description="the outbox id: the SSE `id`, the `webhook-id`; increases with every change")
    type: LiveEventType | Literal["stream.reset"] = Field(
        description="what changed; a stream's `stream.reset` (`data: {reason}`) says: read the event again"
    )
    event_id: str
    timestamp: datetime
    data: dict[str, Any] = Field(description='what changed (api.md "Live updates"); always has `event_id`')


class SeasonLiveEvent(BaseModel):
    """One change of a season, as its stream's `data:` and a webhook's body (of a webhook of every
    event) carry it: `season_id` where an event's change names `event_id`."""

    id: int = Field(description="the outbox id: the SSE `id`, the `webhook-id`; increases with every change")
    type: Literal["season.updated", "stream.reset"] = Field(
        description="what changed; a stream's `stream.reset` (`data: {season_id, reason}`) says: read the "
        "season again"
    )
    season_id: str
    timestamp: datetime
    data: dict[str, Any] = Field(
        description="`season.updated`: `{season_id, reason, event_id}`, `reason` one of `attached`, "
        "`detached`, `event_finished`, `standings_changed`, `deleted` and `event_id` the event that "
        'changed the season (api.md "Live updates")'
    )


class RatingsLiveEvent(BaseModel):
    """One change of a rating pool, as its stream's `data:` and a webhook's body (of a webhook of
    every event) carry it: `pool` where an event's change names `event_id`."""

    id: int = Field(description="the outbox id: the SSE `id`, the `webhook-id`; increases with every change")
    type: Literal["ratings.updated", "stream.reset"] = Field(
        description="what changed; a stream's `stream.reset` (`data: {pool, reason}`) says: read the "
        "leaderboard again"
    )
    pool: str
    timestamp: datetime
    data: dict[str, Any] = Field(
        description="`ratings.updated`: `{pool, reason, games}`, `reason` one of `rated` (games rated after "
        "the pool's last), `recomputed` (the whole pool rated again) or `start_rating` (a player's "
        'starting rating taken at once), `games` the games it rated (api.md "Live updates")'
    )


class WebhookCreate(Strict):
    # the pattern is the document's; the service checks the URL itself, in its own words
    url: str = Field(
        min_length=1,
        max_length=2000,
        description="http or https, a host, no credentials or fragment; a public address",
        json_schema_extra={"pattern": URL_PATTERN},
    )
    events: list[LiveEventType] | None = Field(
        default=None,
        min_length=1,
        max_length=32,
        description="the event types to send; default every type (`season.updated`, `ratings.updated`: the "
        "webhooks of every event only)",
    )


class WebhookRead(BaseModel):
    id: str
    event_id: str | None = Field(description="the event it follows; null: every event (the admin's)")
    url: str
    events: list[str] | None = Field(description="the event types it is sent; null: every type")
    status: WebhookStatus
    disabled_reason: str | None = Field(description="why it was disabled (a day of failed deliveries)")
    failing_since: datetime | None = Field(
        description="the first failed attempt since the last delivered one"
    )
    last_success_at: datetime | None
    created_at: datetime


class WebhookPage(BaseModel):
    items: list[WebhookRead]
    next_cursor: str | None = None


class WebhookCreated(WebhookRead):
    secret: str = Field(
        description="the signing secret (Standard Webhooks, `whsec_…`); shown only in this answer"
    )


class DeliveryRead(BaseModel):
    id: str
    webhook_id: str
    event_id: int = Field(description="the outbox id delivered (`webhook-id`): receivers de-duplicate by it")
    type: LiveEventType
    status: DeliveryStatus
    attempts: int
    last_status_code: int | None = Field(description="the endpoint's HTTP status at the last attempt")
    last_error: str | None
    next_attempt_at: datetime | None = Field(description="when a pending delivery is tried again")
    last_attempt_at: datetime | None
    delivered_at: datetime | None
    created_at: datetime


class DeliveryPage(BaseModel):
    items: list[DeliveryRead]
    next_cursor: str | None = None
