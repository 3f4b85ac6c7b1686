"""Webhooks (api.md "Webhooks"): endpoints registered for one event (its organizer) or for every
event (the admin; these also receive the seasons' ``season.updated`` and the rating pools'
``ratings.updated``), their signed deliveries, and the delivery log.

- Registration checks the URL (http or https, no credentials) and, after resolving its host, that
  every address is public — unless the operator allows private targets
  (``ARBITER_WEBHOOK_ALLOW_PRIVATE``). The secret (Standard Webhooks' ``whsec_…``) is returned once
  and kept sealed under the server's key (``app/services/keyring.py``: ``ARBITER_SECRET_KEY``, or
  the embedded default's key file), so a database dump alone does not yield it.
- The outbox writes a delivery and its job in the transaction of the change
  (``app/services/outbox.py``). The job (``delivery_job``) makes one attempt: it reads what it needs
  in a short session of its own, resolves and checks the host again, posts to the address it
  checked (a name cannot be re-pointed at a private address in between), and records the outcome.
  No transaction is open while it waits on the endpoint.
- A failed attempt schedules the next (``core.webhooks.retry_delay``); ``redeliver`` (the sweep's
  turn) hands due deliveries to new jobs. A delivery a day old is given up; an endpoint whose
  deliveries have all failed for a day is disabled, and says so.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NotRequired
from urllib.parse import urlsplit, urlunsplit

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from typing_extensions import TypedDict

from app.core import webhooks as core
from app.core.access import Principal
from app.core.errors import Conflict, InvalidInput, NotFound, Problem
from app.core.vocabulary import LEAGUE_TYPES, DeliveryStatus, JobKindName, LiveEventType, WebhookStatus
from app.db.base import utcnow
from app.db.models import OutboxEvent, Webhook, WebhookDelivery
from app.db.session import read_only, write_turn
from app.jobs import JobContext, create_job
from app.observability.metrics import webhook_delivery_failed
from app.services import outbox
from app.services.keyring import SecretBox
from app.services.paging import newest_first
from app.services.reads import get_event
from app.version import __version__

POLICY_KEY = "webhook_policy"
MAX_PER_SCOPE = 20  # endpoints per event, and endpoints for every event
RESOLVE_SECONDS = 5.0


@dataclass(frozen=True)
class DeliveryLimits:
    """What one attempt may cost (api.md "Webhooks", docs/operations.md "Scale"): the
    seconds to connect, to the answer's headers and for the whole attempt (the lookup included), the
    bytes of an answer read, and the attempts one process runs at once, in all and per receiver."""

    connect_seconds: float = 3.0
    first_byte_seconds: float = 5.0
    total_seconds: float = 10.0
    max_response_bytes: int = 64 * 1024
    max_concurrent: int = 32
    max_per_receiver: int = 4


class Courier:
    """The deliveries of one process in flight: one HTTP client for all of them (no redirects
    followed), a slot for each in all (waited for: every holder ends within its total deadline), and
    per receiver (its scheme, host and port; never waited for: a receiver with every slot taken gets
    its next delivery at the sweep's next turn, so a slow receiver holds at most its own slots)."""

    def __init__(self, limits: DeliveryLimits) -> None:
        self.limits = limits
        self._slots: asyncio.Semaphore | None = None
        self._client: httpx.AsyncClient | None = None
        self.in_flight: dict[str, int] = {}

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,  # no proxy from the environment: the checked address is the target
                timeout=httpx.Timeout(
                    self.limits.total_seconds,
                    connect=self.limits.connect_seconds,
                    read=self.limits.first_byte_seconds,
                ),
                limits=httpx.Limits(max_connections=self.limits.max_concurrent, max_keepalive_connections=0),
            )
        return self._client

    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limits.max_concurrent)
        return self._slots

    def take(self, receiver: str) -> bool:
        """A slot of ``receiver``'s, if it has one free."""
        if self.in_flight.get(receiver, 0) >= self.limits.max_per_receiver:
            return False
        self.in_flight[receiver] = self.in_flight.get(receiver, 0) + 1
        return True

    def give_back(self, receiver: str) -> None:
        left = self.in_flight.get(receiver, 0) - 1
        if left > 0:
            self.in_flight[receiver] = left
        else:
            self.in_flight.pop(receiver, None)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def receiver_of(url: str) -> str:
    """Who a URL's deliveries go to, for the per-receiver slots: its scheme, host and port."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{parts.port or ''}"


@dataclass(frozen=True)
class WebhookPolicy:
    """How this process treats endpoints: whether private addresses may be targets, the secrets' key,
    what one attempt may cost, and the deliveries in flight."""

    allow_private: bool = False
    box: SecretBox = SecretBox()
    limits: DeliveryLimits = DeliveryLimits()
    courier: Courier = field(default_factory=lambda: Courier(DeliveryLimits()), compare=False)

    @property
    def timeout_seconds(self) -> float:
        return self.limits.total_seconds


def policy_of(session: AsyncSession) -> WebhookPolicy:
    policy = session.info.get(POLICY_KEY)
    return policy if isinstance(policy, WebhookPolicy) else WebhookPolicy()


# --------------------------------------------------------------------------- addresses
async def resolve(url: str) -> list[str]:
    """The addresses the URL's host stands for (an IP literal stands for itself)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(RESOLVE_SECONDS):
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def checked_addresses(url: str, policy: WebhookPolicy) -> list[str]:
    """The URL's addresses, each allowed as a target; a ValueError saying why not."""
    try:
        addresses = await resolve(url)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"the host of {url} does not resolve: {exc}") from None
    if not addresses:
        raise ValueError(f"the host of {url} does not resolve")
    if not policy.allow_private:
        for address in addresses:
            why = core.address_problem(address)
            if why is not None:
                host = urlsplit(url).hostname
                where = f"{address} is" if host == address else f"{host} resolves to {address},"
                raise ValueError(
                    f"{where} {why}; only public addresses are allowed "
                    "(the operator may allow private ones: ARBITER_WEBHOOK_ALLOW_PRIVATE)"
                )
    return addresses


# --------------------------------------------------------------------------- endpoints
@dataclass(frozen=True)
class Registered:
    hook: Webhook
    secret: str  # shown once


def _types_problems(types: Sequence[str] | None, one_event: bool) -> list[Problem]:
    """What is wrong with the types asked for; a season's and a pool's (``LEAGUE_TYPES``) are sent
    to the webhooks of every event only (an event's webhook would never receive one)."""
    if types is None:
        return []
    known = {str(t) for t in LiveEventType}
    problems = [
        Problem(("events", i), f"unknown event type {t!r}; one of {', '.join(sorted(known))}")
        for i, t in enumerate(types)
        if t not in known
    ]
    if one_event:
        problems += [
            Problem(("events", i), f"{t} is sent to the webhooks of every event (POST /v1/webhooks) only")
            for i, t in enumerate(types)
            if t in LEAGUE_TYPES
        ]
    if not types:
        problems.append(Problem(("events",), "name at least one event type, or leave it out for all"))
    return problems


async def register(
    session: AsyncSession,
    principal: Principal,
    event_id: str | None,
    url: str,
    types: Sequence[str] | None,
) -> Registered:
    """An endpoint for one event (``event_id``) or for every event (None)."""
    problems = []
    if (why := core.url_problem(url)) is not None:
        problems.append(Problem(("url",), why))
    problems += _types_problems(types, one_event=event_id is not None)
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    if event_id is not None:
        await get_event(session, event_id)
    policy = policy_of(session)
    try:
        await checked_addresses(url, policy)
    except ValueError as exc:
        raise InvalidInput(str(exc), [Problem(("url",), str(exc))]) from None
    scope = Webhook.event_id == event_id if event_id is not None else Webhook.event_id.is_(None)
    count = len(list((await session.execute(select(Webhook.id).where(scope))).scalars()))
    if count >= MAX_PER_SCOPE:
        where = "this event" if event_id is not None else "every event"
        raise Conflict(f"{where} has {MAX_PER_SCOPE} webhooks already; delete one first")
    secret = core.SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()
    hook = Webhook(
        event_id=event_id,
        url=url,
        types=sorted(set(types)) if types is not None else None,
        secret=policy.box.seal(secret),
        status=WebhookStatus.ACTIVE,
        created_by=principal.actor,
    )
    session.add(hook)
    await session.flush()
    return Registered(hook, secret)


async def list_hooks(session: AsyncSession, event_id: str | None) -> list[Webhook]:
    if event_id is not None:
        await get_event(session, event_id)
    scope = Webhook.event_id == event_id if event_id is not None else Webhook.event_id.is_(None)
    rows = await session.execute(select(Webhook).where(scope).order_by(Webhook.created_at, Webhook.id))
    return list(rows.scalars())


async def get_hook(session: AsyncSession, hook_id: str, event_id: str | None = None) -> Webhook:
    """A webhook; with ``event_id``, only one of that event's."""
    hook = await session.get(Webhook, hook_id)
    if hook is None or (event_id is not None and hook.event_id != event_id):
        raise NotFound(f"webhook {hook_id} not found" + (f" in event {event_id}" if event_id else ""))
    return hook


async def delete_hook(session: AsyncSession, hook_id: str, event_id: str | None = None) -> None:
    """Delete a webhook with its delivery log; deliveries on their way are not sent."""
    await session.delete(await get_hook(session, hook_id, event_id))
    await session.flush()


async def deliveries(
    session: AsyncSession, hook_id: str, event_id: str | None, limit: int, cursor: str | None
) -> tuple[list[WebhookDelivery], str | None]:
    """The webhook's delivery log, newest first."""
    await get_hook(session, hook_id, event_id)
    stmt = select(WebhookDelivery).where(WebhookDelivery.webhook_id == hook_id)
    return await newest_first(
        session, WebhookDelivery, stmt, limit, cursor, belongs=lambda d: d.webhook_id == hook_id
    )


# --------------------------------------------------------------------------- delivery
@dataclass(frozen=True)
class _Attempt:
    url: str
    secret: str
    msg_id: str
    body: bytes


def request_for(url: str, address: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL to post to (the checked address in place of the name), its Host header, and the TLS
    name to verify (the name, not the address)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    literal = f"[{address}]" if ":" in address else address
    netloc = literal + (f":{parts.port}" if parts.port else "")
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    host_header = f"[{host}]" if ":" in host else host
    if parts.port:
        host_header += f":{parts.port}"
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    return pinned, {"host": host_header}, extensions


async def post(attempt: _Attempt, policy: WebhookPolicy) -> tuple[int | None, str | None]:
    """One signed POST: (the HTTP status, None) on a 2xx; (the status or None, the error) otherwise.
    The whole attempt, the lookup included, ends within the total deadline; the answer's headers
    within the first-byte one; at most ``max_response_bytes`` of the answer are read."""
    limits = policy.limits
    try:
        async with asyncio.timeout(limits.total_seconds):
            return await _post(attempt, policy)
    except TimeoutError:
        return None, f"no complete answer within {limits.total_seconds:g} s"


async def _post(attempt: _Attempt, policy: WebhookPolicy) -> tuple[int | None, str | None]:
    limits = policy.limits
    try:
        addresses = await checked_addresses(attempt.url, policy)
    except ValueError as exc:
        return None, f"refused: {exc}"
    timestamp = int(time.time())
    pinned, headers, extensions = request_for(attempt.url, addresses[0])
    headers.update(
        {
            "content-type": "application/json",
            "user-agent": f"Arbiter/{__version__} (webhooks)",
            "webhook-id": attempt.msg_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": core.sign(attempt.secret, attempt.msg_id, timestamp, attempt.body),
        }
    )
    client = policy.courier.client()
    request = client.build_request(
        "POST", pinned, content=attempt.body, headers=headers, extensions=extensions
    )
    try:
        try:
            async with asyncio.timeout(limits.first_byte_seconds + limits.connect_seconds):
                response = await client.send(request, stream=True, follow_redirects=False)
        except TimeoutError:
            return None, f"no answer within {limits.first_byte_seconds:g} s"
        try:
            head = await _head_of(response, limits.max_response_bytes)
        finally:
            await response.aclose()
    except httpx.ConnectTimeout:
        return None, f"no connection within {limits.connect_seconds:g} s"
    except httpx.TimeoutException:
        return None, f"no answer within {limits.first_byte_seconds:g} s"
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]
    code = response.status_code
    if 200 <= code < 300:
        return code, None
    if 300 <= code < 400:
        where = response.headers.get("location", "")[:200]
        return code, f"HTTP {code}: redirects are not followed (to {where or 'nowhere'})"
    return code, f"HTTP {code}: {head.decode(errors='replace')[:200]}"


async def _head_of(response: httpx.Response, limit: int) -> bytes:
    """At most ``limit`` bytes of the answer's body; the rest is never read (the connection closes)."""
    kept = bytearray()
    async for chunk in response.aiter_raw():
        kept += chunk[: limit - len(kept)]
        if len(kept) >= limit:
            break
    return bytes(kept)


def body_of(row: OutboxEvent) -> bytes:
    """What a delivery posts (and signs): the outbox row's envelope as compact JSON."""
    return json.dumps(outbox.envelope(row), separators=(",", ":"), ensure_ascii=False).encode()


class DeliveryResult(TypedDict):
    """The ``webhook_delivery`` job's answer: the attempt's outcome, or why none was made."""

    delivery_id: str
    skipped: NotRequired[str]
    status: NotRequired[DeliveryStatus]
    http_status: NotRequired[int | None]
    error: NotRequired[str | None]


BUSY_DELAY_SECONDS = 5  # a receiver with every slot taken: its delivery waits for the sweep after this


async def delivery_job(session: AsyncSession, ctx: JobContext) -> DeliveryResult:
    """One attempt at one delivery (the ``webhook_delivery`` job kind). It reads in a transaction
    that only reads, posts with no transaction open, and records the outcome in a short one of its
    own, committed (on SQLite after waiting its turn for the one writer, as a request does)."""
    delivery_id = ctx.args["delivery_id"]
    policy = policy_of(session)
    async with ctx.sessionmaker() as peek:  # read, then let go of the database while the endpoint answers
        await read_only(peek)
        delivery = await peek.get(WebhookDelivery, delivery_id)
        hook = await peek.get(Webhook, delivery.webhook_id) if delivery is not None else None
        row = await peek.get(OutboxEvent, delivery.outbox_id) if delivery is not None else None
        await peek.commit()
    if delivery is None or hook is None:
        return {"delivery_id": delivery_id, "skipped": "the webhook or the delivery was deleted"}
    if delivery.status != DeliveryStatus.PENDING:
        return {"delivery_id": delivery_id, "skipped": f"the delivery is {delivery.status}"}
    if hook.status != WebhookStatus.ACTIVE:
        error: str | None = f"the webhook is disabled: {hook.disabled_reason}"
        code: int | None = None
    elif row is None:
        error, code = "the event is no longer kept (outbox retention)", None
    else:
        try:
            secret = policy.box.open(hook.secret)
        except ValueError as exc:
            error, code = str(exc), None
        else:
            courier, receiver = policy.courier, receiver_of(hook.url)
            if not courier.take(receiver):
                return await _recorded(ctx, _busy(delivery_id, courier.limits.max_per_receiver))
            try:
                async with courier.slots():
                    code, error = await post(_Attempt(hook.url, secret, str(row.id), body_of(row)), policy)
            finally:
                courier.give_back(receiver)
    final = hook.status != WebhookStatus.ACTIVE
    return await _recorded(ctx, lambda s: _record(s, delivery_id, hook.id, code, error, final=final))


async def _recorded(
    ctx: JobContext, write: Callable[[AsyncSession], Awaitable[DeliveryResult]]
) -> DeliveryResult:
    """``write`` in a short transaction of its own, committed; on SQLite in this process's turn for
    the writer (``db/session.write_turn``)."""
    async with write_turn(ctx.sessionmaker), ctx.sessionmaker() as s:
        result = await write(s)
        await s.commit()
    return result


def _busy(delivery_id: str, slots: int) -> Callable[[AsyncSession], Awaitable[DeliveryResult]]:
    async def write(s: AsyncSession) -> DeliveryResult:
        # not an attempt: the delivery waits for the sweep, which hands it to a job again
        await s.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == delivery_id, WebhookDelivery.status == DeliveryStatus.PENDING)
            .values(next_attempt_at=utcnow() + timedelta(seconds=BUSY_DELAY_SECONDS))
        )
        return {
            "delivery_id": delivery_id,
            "skipped": f"the receiver has {slots} deliveries in flight; the sweep sends this one later",
        }

    return write


async def _record(
    session: AsyncSession, delivery_id: str, hook_id: str, code: int | None, error: str | None, *, final: bool
) -> DeliveryResult:
    """The attempt's outcome on the delivery and its endpoint (in the job's transaction)."""
    now = utcnow()
    delivery = await session.get(WebhookDelivery, delivery_id)
    hook = await session.get(Webhook, hook_id)
    if delivery is None or hook is None:
        return {"delivery_id": delivery_id, "skipped": "the webhook or the delivery was deleted"}
    delivery.attempts += 1
    delivery.last_attempt_at = now
    delivery.last_status_code = code
    delivery.last_error = error
    if error is None:
        delivery.status = DeliveryStatus.DELIVERED
        delivery.delivered_at = now
        delivery.next_attempt_at = None
        hook.failing_since = None
        hook.last_success_at = now
        return {"delivery_id": delivery_id, "status": DeliveryStatus(delivery.status), "http_status": code}
    if final:  # not sent: the endpoint is disabled
        delivery.status = DeliveryStatus.FAILED
        delivery.next_attempt_at = None
        await session.flush()
        return {"delivery_id": delivery_id, "status": DeliveryStatus(delivery.status), "error": error}
    webhook_delivery_failed()
    hook.failing_since = hook.failing_since or now
    if now - delivery.created_at >= timedelta(seconds=core.GIVE_UP_SECONDS):
        delivery.status = DeliveryStatus.FAILED
        delivery.next_attempt_at = None
    else:
        delivery.next_attempt_at = now + timedelta(seconds=core.retry_delay(delivery.attempts))
    if hook.status == WebhookStatus.ACTIVE and now - hook.failing_since >= timedelta(
        seconds=core.GIVE_UP_SECONDS
    ):
        await _disable(session, hook, now, error)
    await session.flush()
    return {
        "delivery_id": delivery_id,
        "status": DeliveryStatus(delivery.status),
        "http_status": code,
        "error": error,
    }


async def _disable(session: AsyncSession, hook: Webhook, now: datetime, error: str) -> None:
    assert hook.failing_since is not None
    since = hook.failing_since.isoformat(timespec="seconds").replace("+00:00", "Z")
    hook.status = WebhookStatus.DISABLED
    hook.disabled_reason = f"every delivery failed for a day (since {since}); the last error: {error}"[:1000]
    await session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.webhook_id == hook.id, WebhookDelivery.status == DeliveryStatus.PENDING)
        .values(status=DeliveryStatus.FAILED, next_attempt_at=None, last_error="the webhook was disabled")
    )


async def redeliver(session: AsyncSession, now: datetime | None = None, limit: int = 500) -> list[str]:
    """Hand the deliveries whose next attempt is due to new jobs (the sweep's turn); each is leased
    so that no other sweep hands it out again meanwhile. Not committed: the caller commits and
    dispatches. The ids of the jobs."""
    now = now or utcnow()
    due = list(
        (
            await session.execute(
                select(WebhookDelivery.id)
                .where(
                    WebhookDelivery.status == DeliveryStatus.PENDING,
                    WebhookDelivery.next_attempt_at <= now,
                )
                .order_by(WebhookDelivery.next_attempt_at)
                .limit(limit)
            )
        ).scalars()
    )
    jobs: list[str] = []
    for delivery_id in due:
        claimed = await session.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == delivery_id,
                WebhookDelivery.status == DeliveryStatus.PENDING,
                WebhookDelivery.next_attempt_at <= now,
            )
            .values(next_attempt_at=now + timedelta(seconds=core.LEASE_SECONDS))
        )
        if claimed.rowcount == 1:  # type: ignore[attr-defined]
            job = await create_job(session, JobKindName.WEBHOOK_DELIVERY, {"delivery_id": delivery_id})
            jobs.append(job.id)
    return jobs
