"""CPU-bound work off the event loop: a computation runs in a thread, at most ``SLOTS`` at once,
within a time budget, so ``/healthz`` and every other request keep answering while it runs.

A computation past its budget answers 503 (``Busy``) at once; its thread finishes on its own (every
input is capped, so it is bounded) and holds its slot until then, so threads never pile up.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, TypeVar

from app.core.errors import Busy

T = TypeVar("T")

SLOTS = 2  # requests' computations running at once in one process (the machine's cores)
JOB_SLOTS = 2  # schedule searches at once in one process: they never take the requests' slots
DEFAULT_BUDGET = 10.0  # seconds (ARBITER_CPU_SECONDS)
TURN = 100  # items of a long loop on the event loop between two of its turns to other requests

_slots: dict[tuple[int, str], asyncio.Semaphore] = {}
_budget = [DEFAULT_BUDGET]


def configure(budget: float) -> None:
    """The process's budget of one computation (the entry points set it from the settings)."""
    _budget[0] = budget


def _semaphore(pool: str = "requests") -> asyncio.Semaphore:
    key = (id(asyncio.get_running_loop()), pool)
    sem = _slots.get(key)
    if sem is None:
        sem = _slots[key] = asyncio.Semaphore(SLOTS if pool == "requests" else JOB_SLOTS)
    return sem


@contextlib.asynccontextmanager
async def cpu_slot() -> AsyncIterator[None]:
    """Hold one of the process's job slots (a job's search in this process waits for one); the
    requests' computations have slots of their own, so a queue of searches never starves them."""
    sem = _semaphore("jobs")
    async with sem:
        yield


async def off_loop(fn: Callable[..., T], *args: Any, budget: float | None = None) -> T:
    """``fn(*args)`` in a thread; a ``Busy`` (503) when it cannot start or finish within ``budget``
    (the process's, by default)."""
    budget = _budget[0] if budget is None else budget
    sem = _semaphore()
    try:
        async with asyncio.timeout(budget):
            await sem.acquire()
    except TimeoutError:
        raise Busy("every computation slot is taken; retry shortly") from None
    future = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    future.add_done_callback(lambda _: sem.release())
    try:
        return await asyncio.wait_for(asyncio.shield(future), budget)
    except TimeoutError:
        raise Busy(f"the computation ran past its {budget:g} s budget") from None


async def in_turns(items: Iterable[T], every: int = TURN) -> AsyncIterator[T]:
    """``items`` one by one, the event loop given a turn to other requests every ``every`` of them:
    a loop over a long list (the 5,000 rows of a registration) never holds the process for long."""
    for k, item in enumerate(items):
        if k and k % every == 0:
            await asyncio.sleep(0)
        yield item


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for a block that allocates millions of objects
    which form no cycles to speak of (a rating recompute; pairing a 10,000-entry round and shaping
    its answer): the collector would otherwise rescan the growing heap again and again (a quarter of
    such a pairing's CPU). Counted for the whole process, as blocks of several requests interleave:
    it runs again when the last block ends; a collector paused by someone else stays theirs to
    restore. What became garbage meanwhile is collected then."""
    global _collector_pauses
    if _collector_pauses == 0 and not gc.isenabled():
        yield
        return
    _collector_pauses += 1
    gc.disable()
    try:
        yield
    finally:
        _collector_pauses -= 1
        if _collector_pauses == 0:
            gc.enable()


_collector_pauses = 0  # blocks running in this process with the collector paused
