"""Keyset paging of the lists read newest first (api.md "Paging"): the cursor is the id of the last
row of the page before; the next page is the rows created before it, ties on ``created_at`` broken
by id. A cursor this list never handed out is a 422, nothing guessed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import InvalidInput, Problem

T = TypeVar("T")


def bad_cursor() -> InvalidInput:
    return InvalidInput("bad cursor", [Problem(("query", "cursor"), "not a cursor of this list")])


async def newest_first(
    session: AsyncSession,
    model: type[T],
    stmt: Select[Any],
    limit: int,
    cursor: str | None,
    belongs: Callable[[T], bool] = lambda row: True,
) -> tuple[list[T], str | None]:
    """A page of ``stmt``'s rows of ``model`` (a table with ``id`` and ``created_at``), newest first,
    after the row ``cursor`` names (a row that ``belongs`` to this list), and the next page's cursor."""
    m: Any = model
    if cursor:
        last: Any = await session.get(model, cursor) if len(cursor) <= 64 and cursor.isprintable() else None
        if last is None or not belongs(last):
            raise bad_cursor()
        stmt = stmt.where(
            (m.created_at < last.created_at) | ((m.created_at == last.created_at) & (m.id < last.id))
        )
    rows = list(
        (await session.execute(stmt.order_by(m.created_at.desc(), m.id.desc()).limit(limit + 1))).scalars()
    )
    return rows[:limit], (rows[limit - 1].id if len(rows) > limit else None)
