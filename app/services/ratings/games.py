"""The games of a pool, read from the database in rating order and turned into the core's stream
games (the rule is in app/core/ratings.py; formats.md "Violations" for violators).

Order of games (stable, documented): a pool's games are rated in the order of
``(coalesce(Match.reported_at, Match.created_at), Match.id)``, seats by seat number. A correction keeps
the game's original position as long as the results service leaves ``reported_at`` (the first report's
time) alone when it corrects a result.

Which matches rate: ``Match.status == "confirmed"`` in an event feeding the pool (see ``pools``),
outside its ``rated: false`` stages; in a per-character pool only the seats that played the
character are rated. Players come from ``Entry.player_id``. A game with a violation rates every
violator below every non-violator (they score so: formats.md "Violations"), whatever places were
reported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as core
from app.db.models import Entry, Match, Round, Seat
from app.services.ratings.pools import Sources

CHUNK = 20_000

OrderKey = tuple[datetime, str]


def order_col() -> Any:
    return func.coalesce(Match.reported_at, Match.created_at)


def order_key(m: Match) -> OrderKey:
    return (m.reported_at or m.created_at, m.id)


def games_stmt(sources: Sources, after: datetime | None = None) -> Any:
    stmt = (
        select(
            Match.id,
            Match.event_id,
            Match.outcome,
            Entry.player_id,
            Seat.place,
            Seat.character,
            order_col().label("k"),
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
        compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = compiled.construct_params()
        # asyncpg wants positional $n parameters in the order the compiler lists them
        args = [params[name] for name in compiled.positiontup or []]
        cursor = await apg.cursor(str(compiled), *args)
        while True:
            chunk = await cursor.fetch(CHUNK)
            if not chunk:
                break
            yield chunk
        return
    result = await session.stream(stmt.execution_options(yield_per=CHUNK))
    async for part in result.partitions(CHUNK):
        yield [tuple(r) for r in part]


_UNRATED_2P = core.NEVER_RATED | {"forfeit"}


class GameBuilder:
    """Turns ordered (match, seat) rows into the core's stream games, indexing players.

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
            last = rows[-1][0]
            cut = len(rows)
            while cut > 0 and rows[cut - 1][0] == last:
                cut -= 1
            self._carry = rows[cut:]
            rows = rows[:cut]
        out: list[core.StreamGame] = []
        append = out.append
        start = 0
        n = len(rows)
        char_events = self.char_events
        plain = not self.cfg.rate_forfeits
        draws = core.DRAW_OUTCOMES
        player = self.player
        match_ids = self.match_ids
        while start < n:
            first = rows[start]
            mid = first[0]
            end = start + 1
            while end < n and rows[end][0] == mid:
                end += 1
            self.matches_seen += 1
            if (
                end - start == 2
                and plain
                and first[1] not in char_events
                and not first[7]
                and not rows[start + 1][7]
            ):
                # the common case spelled out: two seats, overall pool, no violation
                second = rows[start + 1]
                outcome = first[2]
                pa, pb = first[4], second[4]
                if outcome in draws or (outcome not in _UNRATED_2P and pa is not None and pb is not None):
                    gi = len(match_ids)
                    match_ids.append(mid)
                    append(
                        (
                            gi,
                            first[1],
                            (player(first[3]), player(second[3])),
                            (pa, pb),
                            None,
                            outcome in draws,
                        )
                    )
            else:
                g = self._game(rows[start:end])
                if g is not None:
                    append(g)
            start = end
        return out

    def _game(self, seats: Sequence[Sequence[Any]]) -> core.StreamGame | None:
        first = seats[0]
        outcome = first[2]
        if len(seats) == 2:  # the common case, spelled out
            places: list[Any] = [first[4], seats[1][4]]
        else:
            places = [s[4] for s in seats]
        if any(s[7] for s in seats):  # violators rank below everyone else at the table, as they score
            places = [2 if s[7] else 1 for s in seats]
        if not core.rateable(outcome, len(seats), places, self.cfg):
            return None
        mask: list[bool] | None = None
        if first[1] in self.char_events:
            mask = [s[5] == self.character for s in seats]
            if not any(mask):
                return None
        gi = len(self.match_ids)
        self.match_ids.append(first[0])
        draw = outcome in core.DRAW_OUTCOMES
        return (gi, first[1], [self.player(s[3]) for s in seats], places, mask, draw)
