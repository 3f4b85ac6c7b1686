"""Answers kept by the event's ``standings_mark`` (docs/architecture.md "The standings cache").

A ``MarkedCache`` keeps the last answers of one kind in this process, keyed by (event id, the
event's mark, what else names the answer: a stage and group, a round's number). The mark is read
first, by primary key, in the request's own transaction; every change of the event replaces it in
the change's transaction. So an answer is only ever served to a request that read the mark it was
computed under, and what it was computed from is at least as new as that mark: never older than
the request. Only a transaction that reads uses it (a ``GET``): in one that has changed the event,
the mark read would name changes not yet committed.

Requests that miss at once wait for the one computation of their key; a computation whose request
is cancelled (its client left) leaves the requests waiting on it to compute for themselves.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import NotFound
from app.db.models import Event

V = TypeVar("V")
Key = tuple[str, int, Hashable]


async def standings_mark(session: AsyncSession, event_id: str) -> int:
    """The event's ``standings_mark`` (one primary-key read); NotFound without the event."""
    mark = (
        await session.execute(select(Event.standings_mark).where(Event.id == event_id))
    ).scalar_one_or_none()
    if mark is None:
        raise NotFound(f"event {event_id} not found")
    return int(mark)


class MarkedCache(Generic[V]):
    """At most ``most`` answers and ``most_rows`` rows in all (``rows`` counts an answer's), the
    least recently served going first."""

    def __init__(self, most: int, most_rows: int, rows: Callable[[V], int]) -> None:
        self.most = most
        self.most_rows = most_rows
        self._size = rows
        self.answers: OrderedDict[Key, V] = OrderedDict()
        self.rows = 0  # rows in the answers kept
        self._flights: dict[Key, asyncio.Future[V]] = {}

    def __len__(self) -> int:
        return len(self.answers)

    async def get(
        self, session: AsyncSession, event_id: str, name: Hashable, compute: Callable[[], Awaitable[V]]
    ) -> V:
        """The answer ``name`` of the event, kept or ``compute()``d (NotFound without the event)."""
        key = (event_id, await standings_mark(session, event_id), name)
        answer = self.answers.get(key)
        if answer is not None:
            self.answers.move_to_end(key)
            return answer
        flight = self._flights.get(key)
        if flight is not None:
            try:
                return await asyncio.shield(flight)
            except asyncio.CancelledError:
                if not flight.cancelled():
                    raise  # this request was cancelled
                # the request computing it was (its client left): compute it here
        answer = await self._computed(key, compute)
        twin = self.answers.pop(key, None)  # computed meanwhile by a request beside this one
        if twin is not None:
            self.rows -= self._size(twin)
        self.answers[key] = answer
        self.rows += self._size(answer)
        while len(self.answers) > self.most or (self.rows > self.most_rows and len(self.answers) > 1):
            self.rows -= self._size(self.answers.popitem(last=False)[1])
        return answer

    async def _computed(self, key: Key, compute: Callable[[], Awaitable[V]]) -> V:
        """``compute()``, shared with the requests that miss ``key`` meanwhile."""
        flight: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        flight.add_done_callback(lambda f: f.cancelled() or f.exception())  # read even if none waits
        self._flights[key] = flight
        try:
            answer = await compute()
        except asyncio.CancelledError:
            flight.cancel()
            raise
        except BaseException as exc:
            flight.set_exception(exc)
            raise
        finally:
            if self._flights.get(key) is flight:
                del self._flights[key]
        flight.set_result(answer)
        return answer

    def clear(self) -> None:
        self.answers.clear()
        self.rows = 0
