"""An event's live stream (api.md "Live updates"): what ``GET /v1/events/{id}/stream`` sends, read
from the outbox (``app/services/outbox.py``), woken when a change commits.

One ``Hub`` per API process holds its streams. A stream reads the outbox rows of its event after
the last one it sent, sends them, and waits to be woken: by a commit in this process (every
backend), by Postgres ``NOTIFY`` from any process (the hub listens on one connection of its own), or
at the latest after ``poll_seconds`` (a missed wake-up, another process on the same SQLite file).
Between changes it sends a heartbeat, an SSE comment, every ``heartbeat_seconds`` so that proxies
keep an idle stream open. No stream holds a database connection while it waits.

The hub bounds its streams: ``max_streams`` in the process (503 beyond) and ``max_per_client``
from one client address (429 beyond), so a reconnecting loop cannot exhaust a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.core.errors import DomainError, InvalidInput, Problem
from app.core.vocabulary import LiveEventType
from app.observability.metrics import sse_subscriber
from app.services import outbox
from app.services.reads import get_event

log = logging.getLogger("arbiter.live")

BATCH = 500  # rows read at once; a stream far behind reads again at once
RESET = "stream.reset"  # not an outbox row: the stream's own word that the client must read again


class TooManyStreams(DomainError):
    status = 429
    title = "Too many streams"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class StreamsFull(DomainError):
    status = 503
    title = "Service unavailable"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


@dataclass(frozen=True)
class LiveLimits:
    heartbeat_seconds: float = 15.0
    poll_seconds: float = 5.0
    max_streams: int = 1000
    max_per_client: int = 20
    retry_ms: int = 3000  # what a client waits before it reconnects (SSE ``retry:``)


@dataclass(frozen=True)
class Item:
    """What a stream sends: an outbox row's envelope (``id``, ``type``, ``data``), a ``reset`` (the
    client must read the event again: rows it missed are gone), or a heartbeat (nothing but a
    comment)."""

    id: int | None = None
    type: str | None = None
    data: dict[str, Any] | None = None
    comment: str | None = None


class _Subscriber:
    def __init__(self, event_id: str) -> None:
        self.event_id = event_id
        self.woken = asyncio.Event()


class Hub:
    def __init__(self, engine: AsyncEngine, limits: LiveLimits | None = None) -> None:
        self.engine = engine
        self._sessionmaker: async_sessionmaker[AsyncSession] | None = None
        self.limits = limits or LiveLimits()
        self._subscribers: dict[str, set[_Subscriber]] = {}
        self._clients: Counter[str] = Counter()
        self._count = 0
        self._closing = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None

    # ----------------------------------------------------------------------- wake-ups
    def wake(self, event_ids: Iterable[str]) -> None:
        for event_id in event_ids:
            for sub in self._subscribers.get(event_id, ()):
                sub.woken.set()

    @property
    def sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        assert self._sessionmaker is not None, "the hub has not started"
        return self._sessionmaker

    async def start(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        """Serve streams with sessions of ``sessionmaker`` (whose sessions carry this hub)."""
        self._sessionmaker = sessionmaker
        if self.engine.dialect.name == "postgresql":
            self._listener = asyncio.create_task(self._listen())

    async def close(self) -> None:
        """End every stream (each sends what it has and stops) and the Postgres listener."""
        self._closing.set()
        for subs in self._subscribers.values():
            for sub in subs:
                sub.woken.set()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def _listen(self) -> None:
        """LISTEN on one connection of the pool for as long as the process serves; reconnect when it
        drops (the streams' polling covers the gap, and every stream is woken once it is back)."""
        while not self._closing.is_set():
            conn = None
            try:
                conn = await self.engine.connect()
                raw = await conn.get_raw_connection()
                driver: Any = raw.driver_connection
                lost = asyncio.Event()
                await driver.add_listener(outbox.CHANNEL, lambda _c, _pid, _ch, payload: self.wake([payload]))
                driver.add_termination_listener(lambda _c, lost=lost: lost.set())
                self.wake(list(self._subscribers))  # anything missed while not listening
                while not lost.is_set() and not self._closing.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), timeout=self.limits.poll_seconds)
                    if driver.is_closed():
                        break
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: poll meanwhile, try again
                log.warning("live updates: cannot listen for changes (%s); retrying", exc)
                await asyncio.sleep(min(5.0, self.limits.poll_seconds))
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.invalidate()
                        await conn.close()

    # ----------------------------------------------------------------------- admission
    def check(self, client: str) -> None:
        """Whether there is a place for one more stream of ``client`` (429, 503 when not)."""
        retry = max(1, self.limits.retry_ms // 1000)
        if self._closing.is_set():
            raise StreamsFull("the server is shutting down; reconnect", retry)
        if self._count >= self.limits.max_streams:
            raise StreamsFull(
                f"this server holds its most live streams ({self.limits.max_streams}); retry later", 30
            )
        if self._clients[client] >= self.limits.max_per_client:
            raise TooManyStreams(
                f"at most {self.limits.max_per_client} live streams from one client; close one first", 30
            )

    def _take(self, event_id: str, client: str) -> _Subscriber:
        sub = _Subscriber(event_id)
        self._subscribers.setdefault(event_id, set()).add(sub)
        self._clients[client] += 1
        self._count += 1
        return sub

    def _release(self, sub: _Subscriber, client: str) -> None:
        subs = self._subscribers.get(sub.event_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subscribers[sub.event_id]
        self._clients[client] -= 1
        if self._clients[client] <= 0:
            del self._clients[client]
        self._count -= 1

    @property
    def streams(self) -> int:
        return self._count

    # ----------------------------------------------------------------------- streams
    async def open(
        self, session: AsyncSession, event_id: str, last_event_id: str | None, client: str
    ) -> AsyncIterator[Item]:
        """Check the request (the event exists, ``Last-Event-ID`` is a row id) and take a place, with
        the request's session; then the stream, which reads with sessions of its own."""
        after: int | None = None
        if last_event_id is not None and last_event_id.strip():
            try:
                after = int(last_event_id.strip())
            except ValueError:
                raise InvalidInput(
                    "Last-Event-ID must be the id of an event this stream sent",
                    [Problem(("header", "Last-Event-ID"), "must be a whole number")],
                ) from None
            if after < 0:
                raise InvalidInput(
                    "Last-Event-ID must be the id of an event this stream sent",
                    [Problem(("header", "Last-Event-ID"), "must not be negative")],
                )
        await get_event(session, event_id)
        low, high = await outbox.bounds(session)
        reset: str | None = None
        if after is None:
            position = high
        elif after > high:
            position, reset = high, "Last-Event-ID is ahead of this server's events (another database?)"
        else:
            position = after
            if low > after + 1:
                reset = "some events after Last-Event-ID are no longer kept"
        self.check(client)
        return self._stream(event_id, client, position, reset)

    async def _read(self, event_id: str, position: int) -> list[Any]:
        async with self.sessionmaker() as s:
            rows = await outbox.since(s, event_id, position, BATCH)
            await s.commit()
        return list(rows)

    async def _stream(
        self, event_id: str, client: str, position: int, reset: str | None
    ) -> AsyncIterator[Item]:
        loop = asyncio.get_running_loop()
        sub = self._take(event_id, client)  # taken as the stream starts, so a stream never sent holds none
        try:
            with sse_subscriber():
                if reset is not None:
                    yield Item(id=position, type=RESET, data=outbox.notice(position, RESET, event_id, reset))
                quiet_since = loop.time()
                while True:
                    sub.woken.clear()
                    # shielded: a client leaving mid-read must not cancel the read inside its
                    # transaction (on SQLite that would keep the write lock of the whole file)
                    rows = await asyncio.shield(self._read(sub.event_id, position))
                    for row in rows:
                        position = row.id
                        body = outbox.envelope(row)
                        yield Item(id=row.id, type=row.type, data=body)
                    if rows:
                        quiet_since = loop.time()
                    if any(r.type == LiveEventType.EVENT_DELETED for r in rows) or self._closing.is_set():
                        return
                    if len(rows) == BATCH:
                        continue
                    wait = min(
                        self.limits.poll_seconds,
                        max(0.0, quiet_since + self.limits.heartbeat_seconds - loop.time()),
                    )
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(sub.woken.wait(), timeout=wait)
                    if not sub.woken.is_set() and loop.time() - quiet_since >= self.limits.heartbeat_seconds:
                        yield Item(comment="heartbeat")
                        quiet_since = loop.time()
        finally:
            self._release(sub, client)
