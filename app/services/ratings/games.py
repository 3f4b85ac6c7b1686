"""The games of a pool, read from the database in rating order and turned into the core's stream
games (the rule is in app/core/ratings.py; formats.md "Violations" for violators).

Order of games (stable, documented): a pool's games are rated in the order of
``(coalesce(Match.reported_at, Match.created_at), Match.id)``, seats by seat number. A correction keeps
the game's original position as long as the results service leaves ``reported_at`` (the first report's
time) alone when it corrects a result.

Which matches rate: ``Match.status == "confirmed"`` in an event feeding the pool (see ``pools``),
outside its ``rated: false`` stages. Per-character pools are rated together, by family
(``characters``), from the same rows. Players come from ``Entry.player_id``. A game with a violation rates every
violator below every non-violator (they score so: formats.md "Violations"), whatever places were
reported.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from sqlalchemy import func, null, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.db.models import Entry, Match, Round, Seat
from app.services.ratings.pools import Sources

CHUNK = 20_000


class OrderKey(NamedTuple):
    """Where a match sorts among the pool's games; compares as the plain tuple it is."""

    at: datetime
    match_id: str


class GameRow(NamedTuple):
    """The columns of ``games_stmt``, in order: one row per seat of a confirmed match, seats of a match
    together. Rows arrive as asyncpg records or plain tuples laid out so; the builder unpacks them
    into these names (cheaper than building a ``GameRow`` per row, or than indexing)."""

    match_id: str
    event_id: str
    outcome: str | None
    player_id: str
    place: int | None
    character: str | None
    order_at: datetime
    violation: bool


def _column(name: str) -> Callable[[Sequence[Any]], Any]:
    """A reader of one ``GameRow`` column of a streamed row (a record or a plain tuple)."""
    return itemgetter(GameRow._fields.index(name))


_match_id = _column("match_id")
_player_id = _column("player_id")
_place = _column("place")
_character = _column("character")
_violation = _column("violation")


def order_col() -> Any:
    return func.coalesce(Match.reported_at, Match.created_at)


def order_key(m: Match) -> OrderKey:
    return OrderKey(m.reported_at or m.created_at, m.id)


def games_stmt(
    sources: Sources, after: datetime | None = None, *, by_event: bool = True, ordered_at: bool = True
) -> Any:
    """The pool's rows in the ``GameRow`` layout. A full recompute reads two million rows for a pool
    of a million games, and every column costs in the sort and in decoding: it asks for what it uses
    only, the others come as NULL. ``event_id`` is needed for character events and rating periods
    (``by_event``), ``character`` for character events, ``order_at`` by the incremental update
    (``ordered_at``)."""
    char_events = bool(sources.by_character)
    stmt = (
        select(  # the columns of GameRow, in its order
            Match.id.label("match_id"),
            Match.event_id if by_event or char_events else null().label("event_id"),
            Match.outcome,
            Entry.player_id,
            Seat.place,
            Seat.character if char_events else null().label("character"),
            order_col().label("order_at") if ordered_at else null().label("order_at"),
            Seat.violation,
        )
        .join(Seat, Seat.match_id == Match.id)
        .join(Entry, Entry.id == Seat.entry_id)
        .where(Match.event_id.in_(sources.event_ids), Match.status == "confirmed")
        .order_by(order_col(), Match.id, Seat.seat)
    )
    if sources.unrated_stages:
        stmt = stmt.where(
            Match.round_id.not_in(select(Round.id).where(Round.stage_id.in_(sources.unrated_stages)))
        )
    if after is not None:
        stmt = stmt.where(or_(Match.reported_at >= after, Match.reported_at.is_(None)))
    return stmt


async def stream_rows(session: AsyncSession, stmt: Any) -> AsyncIterator[Sequence[Any]]:
    """The rows of ``stmt`` in chunks, through a server-side cursor (asyncpg) or a stream."""
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        conn = await session.connection()
        raw = await conn.get_raw_connection()
        apg = raw.driver_connection
        assert apg is not None
        # Sort in memory and plan for reading every row (a cursor plans for the first 10% otherwise);
        # SET LOCAL lasts until this transaction ends.
        await apg.execute("SET LOCAL work_mem = '256MB'")
        await apg.execute("SET LOCAL cursor_tuple_fraction = 1.0")
        # compiling the plan to machine code costs a second and gains nothing on a sort and two joins
        await apg.execute("SET LOCAL jit = off")
        compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = compiled.construct_params()
        # asyncpg wants positional $n parameters in the order the compiler lists them
        args = [params[name] for name in compiled.positiontup or []]
        cursor = await apg.cursor(str(compiled), *args)
        # the next chunk is asked for before this one is handed over: the server reads and sends it
        # while the caller builds and rates this one
        pending = asyncio.ensure_future(cursor.fetch(CHUNK))
        try:
            while chunk := await pending:
                pending = asyncio.ensure_future(cursor.fetch(CHUNK))
                await asyncio.sleep(0)  # the request goes out
                yield chunk
        finally:  # the caller stopped early (an error): the fetch in flight ends before the rollback
            pending.cancel()
            await asyncio.wait([pending])
            if not pending.cancelled():
                pending.exception()  # retrieved: it is not this error
        return
    result = await session.stream(stmt.execution_options(yield_per=CHUNK))
    async for part in result.partitions(CHUNK):
        yield [tuple(r) for r in part]


_UNRATED_2P = core.NEVER_RATED | {"forfeit"}


class GameBuilder:
    """Turns ordered (match, seat) rows (``GameRow`` layout) into the core's stream games, indexing
    players.

    Rows arrive in chunks; the rows of a chunk's last match are held back until the next chunk
    (a match's seats may straddle two chunks)."""

    def __init__(
        self,
        sources: Sources,
        cfg: core.PoolConfig,
        state: core.PoolState,
        initial: dict[str, tuple[float, int]],
    ) -> None:
        self.char_events = set(sources.by_character)
        self.character = sources.character
        self.cfg = cfg
        self.state = state
        self.initial = initial
        self.index: dict[str, int] = {}
        self.players: list[str] = []
        self.match_ids: list[str] = []
        self.matches_seen = 0
        self._carry: list[Sequence[Any]] = []

    def player(self, pid: str) -> int:
        i = self.index.get(pid)
        if i is None:
            i = self.index[pid] = len(self.players)
            self.players.append(pid)
            rating, games = self.initial.get(pid, (self.cfg.start, 0))
            self.state.ratings.append(rating)
            self.state.games.append(games)
        return i

    def feed(self, chunk: Sequence[Sequence[Any]], final: bool = False) -> list[core.StreamGame]:
        rows = self._carry + list(chunk) if self._carry else list(chunk)
        self._carry = []
        if not final and rows:
            last = _match_id(rows[-1])
            cut = len(rows)
            while cut > 0 and _match_id(rows[cut - 1]) == last:
                cut -= 1
            self._carry = rows[cut:]
            rows = rows[:cut]
        out: list[core.StreamGame] = []
        append = out.append
        char_events = self.char_events
        plain = not self.cfg.rate_forfeits
        draws = core.DRAW_OUTCOMES
        player = self.player
        index = self.index
        match_ids = self.match_ids
        seen = 0
        for match_id, group in groupby(rows, _match_id):
            seats = tuple(group)
            seen += 1
            if plain and len(seats) == 2:
                (
                    (_, event_id, outcome, player_a, place_a, _, _, violation_a),
                    (_, _, _, player_b, place_b, _, _, violation_b),
                ) = seats
                if event_id not in char_events and not violation_a and not violation_b:
                    # the common case spelled out: two seats, overall pool, no violation
                    if outcome in draws or (
                        outcome not in _UNRATED_2P and place_a is not None and place_b is not None
                    ):
                        gi = len(match_ids)
                        match_ids.append(match_id)
                        a = index.get(player_a)
                        if a is None:
                            a = player(player_a)
                        b = index.get(player_b)
                        if b is None:
                            b = player(player_b)
                        append(
                            (
                                gi,
                                event_id,
                                (a, b),
                                (place_a, place_b),
                                None,
                                outcome in draws,
                            )
                        )
                    continue
            g = self._game(seats)
            if g is not None:
                append(g)
        self.matches_seen += seen
        return out

    def _game(self, seats: Sequence[Sequence[Any]]) -> core.StreamGame | None:
        match_id, event_id, outcome, _, _, _, _, _ = seats[0]
        places: list[Any] = core.rated_places(list(map(_place, seats)), list(map(_violation, seats)))
        if not core.rateable(outcome, len(seats), places, self.cfg):
            return None
        mask: list[bool] | None = None
        if event_id in self.char_events:
            mask = [character == self.character for character in map(_character, seats)]
            if not any(mask):
                return None
        gi = len(self.match_ids)
        self.match_ids.append(match_id)
        draw = outcome in core.DRAW_OUTCOMES
        return (gi, event_id, [self.player(pid) for pid in map(_player_id, seats)], places, mask, draw)
