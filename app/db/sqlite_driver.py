"""One turn of the SQLite thread per statement (docs/operations.md "Scale").

aiosqlite runs every call on the connection's own thread, and each call is a turn there and back:
the request queued to the thread, the thread woken, the answer handed back through the event loop's
wake-up pipe. SQLAlchemy's adapter makes four of them for one statement — the cursor opened, the
statement executed, its rows fetched, the cursor closed — and those turns, not SQLite, were most of
what a statement cost the process. The cursor here does the four in one function run on the thread:
the same calls on the same connection in the same order, so the same transaction and the same
errors, in one turn. What SQLAlchemy reads of a cursor afterwards (its description, row count, last
row id, rows) is kept from that run. A server-side cursor (``stream``) is left to the adapter.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection, AsyncAdapt_aiosqlite_cursor
from sqlalchemy.util import EMPTY_DICT


def _run(raw: Any, operation: str, parameters: Any, many: bool) -> tuple[Any, list[Any], int, int | None]:
    """On the SQLite thread: a cursor opened, the statement run, its rows read, the cursor closed."""
    cursor = raw.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneTurnCursor(AsyncAdapt_aiosqlite_cursor):
    """SQLAlchemy's aiosqlite cursor, each statement run in one turn of the connection's thread."""

    __slots__ = ("_description", "_rowcount", "_lastrowid", "_arraysize")

    def __init__(self, adapt_connection: Any) -> None:
        # no driver cursor is opened here: ``_run`` opens and closes its own
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1  # the driver's default: what fetchmany() without a size takes

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> Any:
        return self._lastrowid

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    async def _turn(self, operation: Any, parameters: Any, many: bool) -> None:
        async with self._adapt_connection._execute_mutex:
            raw = self._connection._conn
            self._description, rows, self._rowcount, self._lastrowid = await self._connection._execute(
                _run, raw, operation, parameters, many
            )
            self._rows = collections.deque(rows)

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        await self._turn(operation, parameters, False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Sequence[Any]) -> Any:
        await self._turn(operation, seq_of_parameters, True)

    async def _async_soft_close(self) -> None:
        return None  # nothing is left open on the thread

    def close(self) -> None:
        self._rows.clear()

    def nextset(self) -> None:
        self._rows.clear()  # one statement, one result set

    def setinputsizes(self, *inputsizes: Any) -> None:
        return None


class OneTurnConnection(AsyncAdapt_aiosqlite_connection):
    """The adapter's connection, its cursors ``OneTurnCursor``."""

    __slots__ = ()
    _cursor_cls = OneTurnCursor


def one_turn(dbapi_conn: Any) -> None:
    """Make a new connection's cursors run in one turn (the engine's ``connect`` event)."""
    if type(dbapi_conn) is AsyncAdapt_aiosqlite_connection:
        dbapi_conn.__class__ = OneTurnConnection
