"""An event's live stream (api.md "Live updates"): what ``GET /v1/events/{id}/stream`` sends, read
from the outbox (``app/services/outbox.py``), woken when a change commits.

One ``Hub`` per API process holds its streams. The streams of one event share one *feed*: a
reader that, when woken — by a commit in this process (every backend), by Postgres ``NOTIFY`` from
any process (the hub listens on one connection of its own), or at the latest after
``poll_seconds`` (a missed wake-up, another process on the same SQLite file) — reads the event's
outbox rows after the last one it read, once, and keeps the latest of them for its streams. A
change costs one read per event and process, whatever the number of streams; the streams send
from the feed. A stream that starts (or resumes with ``Last-Event-ID``) behind what its feed keeps
catches up with reads of its own, at most ``CATCH_UP`` of them at once in the process. Between
changes a stream sends a heartbeat, an SSE comment, every ``heartbeat_seconds`` so that proxies keep
an idle stream open. No stream holds a database connection while it waits; the pool serves the
requests.

A season's stream (``GET /v1/seasons/{id}/stream``, ``open_season``) is the same machinery under
the season's id: its rows are keyed by it in the outbox (``outbox.season_updated``), so its feed,
wake-ups and ``Last-Event-ID`` are an event's; only its envelope names ``season_id``. So is a rating
pool's (``GET /v1/ratings/{pool}/stream``, ``open_pool``), under the pool's outbox key
(``outbox.pool_key``), its envelope naming ``pool``.

The hub bounds its streams: ``max_streams`` in the process (503 beyond) and ``max_per_client``
from one client address (429 beyond), so a reconnecting loop cannot exhaust a process.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.pool import NullPool

from app.core.errors import DomainError, InvalidInput, Problem
from app.core.vocabulary import LiveEventType
from app.db.session import make_engine, read_only
from app.observability.metrics import sse_subscriber
from app.services import outbox
from app.services.ratings import get_pool
from app.services.reads import get_event
from app.services.seasons import get_season

log = logging.getLogger("arbiter.live")

BATCH = 500  # rows read at once; a stream far behind reads again at once
KEPT = 1000  # rows a feed keeps for its streams
COALESCE_SECONDS = 1.0  # after a change reaches the streams, the next second's changes go out together
CATCH_UP = 2  # reads of streams behind their feed, at once in one process
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
    encoded: str | None = None  # ``data`` as compact JSON, made once for every stream that sends it
    batch: tuple[Item, ...] = ()  # several rows sent at once, in order (then nothing else is set)


def _item(row: Any) -> Item:
    body = outbox.envelope(row)
    return Item(id=row.id, type=row.type, data=body, encoded=json.dumps(body, separators=(",", ":")))


class _Subscriber:
    def __init__(self, event_id: str) -> None:
        self.event_id = event_id  # the event's id, or the season's
        self.woken = asyncio.Event()


class _Feed:
    """One event's rows in this process: every row of the event with an id in ``(base, head]`` is
    in ``items`` (oldest first), and a reader task keeps ``head`` up to date while streams follow."""

    def __init__(self, event_id: str, position: int) -> None:
        self.event_id = event_id
        self.base = self.head = position
        self.items: list[Item] = []
        self.ids: list[int] = []
        self.subscribers: set[_Subscriber] = set()
        self.dirty = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def after(self, position: int) -> list[Item] | None:
        """The kept rows after ``position``; None when rows after it are no longer kept here."""
        if position < self.base:
            return None
        return self.items[bisect.bisect_right(self.ids, position) :]

    def add(self, items: list[Item]) -> None:
        for item in items:
            assert item.id is not None
            self.items.append(item)
            self.ids.append(item.id)
            self.head = item.id
        if len(self.items) > KEPT:
            dropped = len(self.items) - KEPT
            self.base = self.ids[dropped - 1]
            del self.items[:dropped], self.ids[:dropped]


class Hub:
    def __init__(self, engine: AsyncEngine, limits: LiveLimits | None = None) -> None:
        self.engine = engine
        self._sessionmaker: async_sessionmaker[AsyncSession] | None = None
        self.limits = limits or LiveLimits()
        self._feeds: dict[str, _Feed] = {}
        self._catch_up = asyncio.Semaphore(CATCH_UP)
        self._clients: Counter[str] = Counter()
        self._count = 0
        self._closing = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None

    # ----------------------------------------------------------------------- wake-ups
    def wake(self, event_ids: Iterable[str]) -> None:
        for event_id in event_ids:
            feed = self._feeds.get(event_id)
            if feed is not None:
                feed.dirty.set()

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
        for feed in self._feeds.values():
            for sub in feed.subscribers:
                sub.woken.set()
        for feed in list(self._feeds.values()):
            feed.dirty.set()
        readers = [f.task for f in self._feeds.values() if f.task is not None]
        if readers:
            await asyncio.wait(readers, timeout=5)
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def _listen(self) -> None:
        """LISTEN on one connection for as long as the process serves; reconnect when it
        drops (the streams' polling covers the gap, and every stream is woken once it is back)."""
        # a connection of its own, outside the pool: the pool serves the requests only
        listening = make_engine(self.engine.url.render_as_string(hide_password=False), poolclass=NullPool)
        try:
            await self._listen_on(listening)
        finally:
            await listening.dispose()

    async def _listen_on(self, listening: AsyncEngine) -> None:
        while not self._closing.is_set():
            conn = None
            try:
                conn = await listening.connect()
                raw = await conn.get_raw_connection()
                driver: Any = raw.driver_connection
                lost = asyncio.Event()
                await driver.add_listener(outbox.CHANNEL, lambda _c, _pid, _ch, payload: self.wake([payload]))
                driver.add_termination_listener(lambda _c, lost=lost: lost.set())
                self.wake(list(self._feeds))  # anything missed while not listening
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

    def _take(self, event_id: str, client: str, position: int) -> tuple[_Subscriber, _Feed]:
        sub = _Subscriber(event_id)
        feed = self._feeds.get(event_id)
        if feed is None:
            feed = self._feeds[event_id] = _Feed(event_id, position)
            feed.task = asyncio.create_task(self._follow(feed))
        feed.subscribers.add(sub)
        self._clients[client] += 1
        self._count += 1
        return sub, feed

    def _release(self, sub: _Subscriber, feed: _Feed, client: str) -> None:
        feed.subscribers.discard(sub)
        if not feed.subscribers:
            if self._feeds.get(feed.event_id) is feed:
                del self._feeds[feed.event_id]
            feed.dirty.set()  # its reader sees it has no stream left and stops
        self._clients[client] -= 1
        if self._clients[client] <= 0:
            del self._clients[client]
        self._count -= 1

    async def _follow(self, feed: _Feed) -> None:
        """The feed's reader: read the event's new rows when woken (or every ``poll_seconds``), once
        for all of its streams, and wake them."""
        while feed.subscribers and not self._closing.is_set():
            feed.dirty.clear()
            try:
                # shielded: a stream leaving mid-read must not cancel a read inside its transaction
                rows = await asyncio.shield(self._read(feed.event_id, feed.head))
            except Exception as exc:  # the database is away: the streams wait, the next turn retries
                log.warning("live updates: cannot read the changes of event %s (%s)", feed.event_id, exc)
                rows = []
            if rows:
                feed.add([_item(row) for row in rows])
                for sub in feed.subscribers:
                    sub.woken.set()
                if len(rows) == BATCH:
                    continue
                # the changes of the next moment go out together: a stream costs a wake-up and a
                # write per batch, not per change, however fast the changes come
                await asyncio.sleep(COALESCE_SECONDS)
            if not feed.dirty.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.limits.poll_seconds):
                        await feed.dirty.wait()

    @property
    def streams(self) -> int:
        return self._count

    # ----------------------------------------------------------------------- streams
    async def open(
        self, session: AsyncSession, event_id: str, last_event_id: str | None, client: str
    ) -> AsyncIterator[Item]:
        """Check the request (the event exists, ``Last-Event-ID`` is a row id) and take a place, with
        the request's session; then the stream, which reads with sessions of its own."""
        after = _after(last_event_id)
        await get_event(session, event_id)
        return await self._open(session, event_id, after, client, "event_id")

    async def open_season(
        self, session: AsyncSession, season_id: str, last_event_id: str | None, client: str
    ) -> AsyncIterator[Item]:
        """``open`` for a season's stream (the season exists)."""
        after = _after(last_event_id)
        await get_season(session, season_id)
        return await self._open(session, season_id, after, client, "season_id")

    async def open_pool(
        self, session: AsyncSession, pool: str, last_event_id: str | None, client: str
    ) -> AsyncIterator[Item]:
        """``open`` for a rating pool's stream (the pool exists), under its outbox key."""
        after = _after(last_event_id)
        await get_pool(session, pool)
        return await self._open(session, outbox.pool_key(pool), after, client, "pool", pool)

    async def _open(
        self,
        session: AsyncSession,
        key: str,
        after: int | None,
        client: str,
        named: str,
        shown: str | None = None,
    ) -> AsyncIterator[Item]:
        """The stream of the rows keyed ``key``; its own messages name ``shown`` (default ``key``) as
        ``named``."""
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
        return self._stream(key, client, position, reset, (named, shown if shown is not None else key))

    async def _read(self, event_id: str, position: int) -> list[Any]:
        async with self.sessionmaker() as s:
            await read_only(s)
            rows = await outbox.since(s, event_id, position, BATCH)
            await s.commit()
        return list(rows)

    async def _behind(self, event_id: str, position: int) -> list[Item]:
        """The rows after ``position`` of a stream behind its feed, read for it alone."""
        async with self._catch_up:
            rows = await asyncio.shield(self._read(event_id, position))
        return [_item(row) for row in rows]

    async def _stream(
        self, event_id: str, client: str, position: int, reset: str | None, named: tuple[str, str]
    ) -> AsyncIterator[Item]:
        loop = asyncio.get_running_loop()
        # taken as the stream starts, so a stream never sent holds none
        sub, feed = self._take(event_id, client, position)
        try:
            with sse_subscriber():
                if reset is not None:
                    name, shown = named
                    yield Item(
                        id=position, type=RESET, data=outbox.notice(position, RESET, shown, reset, name)
                    )
                quiet_since = loop.time()
                while True:
                    sub.woken.clear()
                    kept = feed.after(position)
                    items = kept if kept is not None else await self._behind(event_id, position)
                    if kept is None and not items:
                        position = feed.base  # the rows between are no longer kept anywhere
                        continue
                    if len(items) > 1:  # sent as one write
                        yield Item(batch=tuple(items))
                    elif items:
                        yield items[0]
                    if items:
                        assert items[-1].id is not None
                        position = items[-1].id
                    if items:
                        quiet_since = loop.time()
                    if any(i.type == LiveEventType.EVENT_DELETED for i in items) or self._closing.is_set():
                        return
                    if kept is None and len(items) == BATCH:
                        continue
                    if kept is None and items:
                        continue  # caught up as far as one read goes: look at the feed again
                    wait = min(
                        self.limits.poll_seconds,
                        max(0.0, quiet_since + self.limits.heartbeat_seconds - loop.time()),
                    )
                    if not sub.woken.is_set():
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(wait):  # no task of its own, unlike wait_for
                                await sub.woken.wait()
                    if not sub.woken.is_set() and loop.time() - quiet_since >= self.limits.heartbeat_seconds:
                        yield Item(comment="heartbeat")
                        quiet_since = loop.time()
        finally:
            self._release(sub, feed, client)


def _after(last_event_id: str | None) -> int | None:
    """The row id a stream resumes after (``Last-Event-ID``, or ``?since=``); None: from now."""
    if last_event_id is None or not last_event_id.strip():
        return None
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
    return after
