"""One page shape for every list (api.md "Paging"): ``{items, next_cursor}``, ``limit`` bounded.

Lists read whole from the database (an event's entries and rounds, the games, a player's ratings,
histories, webhooks) page here by key: the cursor is the opaque key of the last item sent, and the
next page starts after that item. A cursor that is not one (not base64 JSON) or names no item of
this list is a 422 at ``query.cursor``; nothing is guessed.

``from_list`` and ``from_service`` give a list's pages to app/api/csv_io.py ``list_answer``, which
answers one page as JSON, or as CSV every page from the cursor on (api.md "CSV").
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Query

from app.services.paging import bad_cursor

T = TypeVar("T")

Limit = Annotated[int, Query(ge=1, le=500, description="items per page (1–500)")]
Cursor = Annotated[
    str | None, Query(max_length=500, description="the `next_cursor` of the page before; none for the first")
]
DEFAULT_LIMIT = 100


def encode_cursor(key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> Any:
    try:
        return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode())
    except (ValueError, UnicodeDecodeError, binascii.Error) as exc:
        raise bad_cursor() from exc


def page(
    items: Sequence[T], key: Callable[[T], Any], limit: int, cursor: str | None
) -> tuple[list[T], str | None]:
    """The items after the cursor's, at most ``limit``, and the cursor of the next page (None: last)."""
    start = 0
    if cursor:
        wanted = decode_cursor(cursor)
        keys = [key(i) for i in items]
        if wanted not in keys:
            raise bad_cursor()
        start = keys.index(wanted) + 1
    chunk = list(items[start : start + limit])
    more = start + limit < len(items)
    return chunk, encode_cursor(key(chunk[-1])) if more and chunk else None


R = TypeVar("R")
# One page of a list as a CSV answer reads it (app/api/csv_io.py ``list_answer``): at most ``limit``
# items after ``cursor`` (None: from the first), and the cursor of the next page (None: the last).
Fetch = Callable[[int, str | None], Awaitable[tuple[Sequence[R], str | None]]]


def from_list(items: Sequence[T], key: Callable[[T], Any], read: Callable[[T], R]) -> Fetch[R]:
    """The pages of a list read whole (paged by ``key`` as ``page`` pages it), each item shaped by
    ``read`` once it is on the page."""

    async def fetch(limit: int, cursor: str | None) -> tuple[Sequence[R], str | None]:
        chunk, nxt = page(items, key, limit, cursor)
        return [read(i) for i in chunk], nxt

    return fetch


SERVICE_CHUNK = 200  # items asked of a service that pages in the database, per call


def from_service(
    call: Callable[[int, str | None], Awaitable[tuple[Sequence[T], str | None]]], read: Callable[[T], R]
) -> Fetch[R]:
    """The pages of a list that pages in the database (its service takes a limit and a cursor),
    each item shaped by ``read``; at most ``SERVICE_CHUNK`` items a call (a JSON page is never
    longer; a CSV is read a chunk at a time)."""

    async def fetch(limit: int, cursor: str | None) -> tuple[Sequence[R], str | None]:
        rows, nxt = await call(min(limit, SERVICE_CHUNK), cursor)
        return [read(r) for r in rows], nxt

    return fetch
