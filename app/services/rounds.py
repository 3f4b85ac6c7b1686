"""Rounds: creating one from its tables (generated or the organizer's, checked), and reading them.

Round numbers run through the whole event (stage 2's first round follows stage 1's last). Each
table's first token holder is drawn from the event seed, or, in a game whose own rules draw who
plays first from the match's seed (``Game.first_seat``: a Rite of Command deal), is that player.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.attributes import set_committed_value

from app.core import rng
from app.core.errors import InvalidInput, NotFound, Problem
from app.core.games.adjudication import match_seed
from app.core.games.registry import FIRST_SEATS
from app.core.vocabulary import EntryStatus, MatchStatus, Outcome
from app.db.base import new_id, utcnow
from app.db.bulk import as_loaded, bulk_insert, json_text
from app.db.models import Event, Match, Round, Seat, Stage
from app.db.session import kept_in_transaction, transaction_state
from app.services import outbox
from app.services.marked import MarkedCache
from app.services.reads import details_of, entries_by_id, entry_names, game_of, get_event, stage_settings


@dataclass(frozen=True, slots=True)
class Drawn:
    """A round as a stage format draws it (``StageFormat.next_tables``): its ``tables``; why they
    are paired so (``pairing``: one of app/services/formats/explanations.py's shapes, kept as the
    round's ``details["pairing"]``); and ``seat_balance``: each pair's seats were allocated by the
    entries' seat histories (formats.md "Seat allocation"), so the first seat holds the first token."""

    tables: list[list[str]]
    pairing: Mapping[str, Any] | None = None
    seat_balance: bool = False


async def write_drawn(
    session: AsyncSession, event: Event, stage: Stage, drawn: Drawn
) -> tuple[Round, list[Match]]:
    """``write_round`` of a drawn round, with its explanation and its seats' first token."""
    details = {"pairing": dict(drawn.pairing)} if drawn.pairing else None
    return await write_round(
        session, event, stage, drawn.tables, details, first_seat_token=drawn.seat_balance
    )


async def _next_round_number(session: AsyncSession, event_id: str) -> int:
    n = await session.execute(select(func.count()).select_from(Round).where(Round.event_id == event_id))
    return int(n.scalar_one()) + 1


async def create_round(
    session: AsyncSession,
    event: Event,
    stage: Stage,
    tables: list[list[str]],
    details: dict[str, Any] | None = None,
    *,
    first_seat_token: bool = False,
) -> Round:
    """One round of exactly these tables; a table of one entry is a bye. The first token is drawn
    per table from the event seed, or (``first_seat_token``: seats allocated by history) held by
    seat 0."""
    rnd, _ = await write_round(session, event, stage, tables, details, first_seat_token=first_seat_token)
    return rnd


# the columns ``write_round`` writes (the others are NULL: no game log, no character, no score yet)
MATCH_COLUMNS = [
    "id",
    "event_id",
    "round_id",
    "table",
    "status",
    "outcome",
    "best_of",
    "version",
    "reported_at",
    "details",
    "created_at",
]
SEAT_COLUMNS = ["id", "match_id", "entry_id", "seat", "first_token", "place", "violation"]


async def write_round(
    session: AsyncSession,
    event: Event,
    stage: Stage,
    tables: list[list[str]],
    details: dict[str, Any] | None = None,
    *,
    first_seat_token: bool = False,
) -> tuple[Round, list[Match]]:
    """``create_round``, with the round's matches (table order, seats in seat order) for a caller
    that goes on with them. The matches and seats are written in one go each (``bulk_insert``: COPY
    on Postgres, one statement of many rows elsewhere; no objects tracked row by row), and their
    objects are made from the very values written, as the session would have loaded them, rather
    than read back (``_as_loaded``)."""
    number = await _next_round_number(session, event.id)
    rnd = Round(event_id=event.id, stage_id=stage.id, number=number, details=details or {})
    session.add(rnd)
    await session.flush()
    best_of = stage_settings(stage).games_per_match
    now = utcnow()
    no_details = json_text(session, {})
    match_rows: list[tuple[Any, ...]] = []
    seat_rows: list[tuple[Any, ...]] = []
    # a game whose own rules draw who plays first from the match's seed (a Rite of Command deal):
    # that seat holds the first token, so the ★ is the game's first player, not a second draw
    game_first = FIRST_SEATS.get((await game_of(session, event)).adjudicator or "")
    pending, bye_status = MatchStatus.PENDING.value, MatchStatus.BYE.value
    for t, table in enumerate(tables, start=1):
        bye = len(table) == 1
        match_id = new_id()
        own = None if bye or game_first is None else game_first(match_seed(event.seed, match_id), len(table))
        first = (
            own
            if own is not None
            else 0
            if bye or first_seat_token
            else rng.stream(event.seed, f"round:{number}:table:{t}:first_token").randrange(len(table))
        )
        match_rows.append(
            (
                match_id,
                event.id,
                rnd.id,
                t,
                bye_status if bye else pending,
                Outcome.BYE.value if bye else None,
                best_of,
                1,
                now if bye else None,
                no_details,
                now,
            )
        )
        seat_rows.extend(
            (new_id(), match_id, e, i, i == first, 1 if bye else None, False) for i, e in enumerate(table)
        )
    if match_rows:
        await bulk_insert(session, Match, MATCH_COLUMNS, match_rows)
        await bulk_insert(session, Seat, SEAT_COLUMNS, seat_rows)
    made = _as_loaded(session, match_rows, seat_rows)
    written: dict[str, list[Match]] = transaction_state(session, _WRITTEN, dict)
    written[rnd.id] = made
    await outbox.round_paired(session, event, stage, rnd, made)
    return rnd, made


_WRITTEN = "rounds.written"  # the transaction's state: round id -> the matches ``write_round`` wrote


def _as_loaded(
    session: AsyncSession, match_rows: list[tuple[Any, ...]], seat_rows: list[tuple[Any, ...]]
) -> list[Match]:
    """The matches of these rows (``MATCH_COLUMNS``, ``SEAT_COLUMNS``) with their seats, as a query
    of the rows just written would have loaded them (``bulk.as_loaded``), the seats' collection in
    seat order: making them costs a fraction of reading the rows back."""
    seats: dict[str, list[Seat]] = {}
    for seat in as_loaded(session, Seat, SEAT_COLUMNS, seat_rows):
        seats.setdefault(seat.match_id, []).append(seat)
    made: list[Match] = as_loaded(session, Match, MATCH_COLUMNS, match_rows)
    for match in made:
        set_committed_value(match, "details", {})  # the JSON written, as a load gives it: its own dict
        set_committed_value(match, "seats", seats.get(match.id, []))
    return made


async def check_tables(
    session: AsyncSession, event: Event, stage: Stage, tables: list[list[str]], duel: bool = False
) -> list[list[str]]:
    """The organizer's tables for a round, each entry of the stage at most once, table sizes within
    the game's limits — two seats in a ``duel`` stage (a table of one is a bye either way); every
    problem is reported at once."""
    game = await game_of(session, event)
    entries = await entries_by_id(session, event.id)
    in_stage = set(details_of(stage).entries)
    problems: list[Problem] = []
    seen: set[str] = set()
    if not tables:
        problems.append(Problem(("tables",), "give at least one table"))
    for t, table in enumerate(tables):
        size = len(table)
        if duel and size > 2:
            problems.append(
                Problem(
                    ("tables", t),
                    f"a table of {size} in a stage of duels: a table has two seats (one for a bye)",
                )
            )
        elif size != 1 and not game.min_seats <= size <= game.max_seats:
            problems.append(
                Problem(
                    ("tables", t),
                    f"a table of {size} is outside the {game.min_seats}–{game.max_seats} seats of {game.key}",
                )
            )
        for i, entry_id in enumerate(table):
            loc: tuple[str | int, ...] = ("tables", t, i)
            entry = entries.get(entry_id)
            if entry is None:
                problems.append(Problem(loc, f"entry {entry_id} is not in this event"))
            elif entry_id not in in_stage:
                problems.append(Problem(loc, f"entry {entry_id} does not play in this stage"))
            elif entry.status != EntryStatus.ACTIVE:
                problems.append(Problem(loc, f"entry {entry_id} is {entry.status}"))
            if entry_id in seen:
                problems.append(Problem(loc, f"entry {entry_id} is seated twice in this round"))
            seen.add(entry_id)
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    return tables


# --------------------------------------------------------------------------- reads
@dataclass(frozen=True, eq=False)
class RoundView:
    """A round as clients read it: its stage, its matches with seats, and the entries' names;
    compared and hashed by identity (the API keeps a cached one's renderings beside it)."""

    round: Round
    stage: Stage
    matches: list[Match]
    names: dict[str, str]


async def round_matches(session: AsyncSession, rnd: Round) -> list[Match]:
    """The round's matches in table order, seats loaded."""
    rows = await session.execute(
        select(Match).where(Match.round_id == rnd.id).options(selectinload(Match.seats)).order_by(Match.table)
    )
    return list(rows.scalars())


def written_matches(session: AsyncSession, rnd: Round) -> list[Match] | None:
    """The matches this transaction's ``write_round`` wrote for ``rnd`` (the very objects a query
    would give), or None when it wrote none for it."""
    written: dict[str, list[Match]] = kept_in_transaction(session, _WRITTEN) or {}
    return written.get(rnd.id)


async def round_view(session: AsyncSession, rnd: Round, matches: list[Match] | None = None) -> RoundView:
    """The round as clients read it; ``matches``: its matches already loaded (``write_round``)."""
    stage = await session.get(Stage, rnd.stage_id)
    assert stage is not None
    if matches is None:
        matches = written_matches(session, rnd)
    if matches is None:
        matches = await round_matches(session, rnd)
    return RoundView(rnd, stage, matches, await entry_names(session, rnd.event_id))


async def event_rounds(session: AsyncSession, event_id: str) -> list[RoundView]:
    await get_event(session, event_id)
    rows = await session.execute(select(Round).where(Round.event_id == event_id).order_by(Round.number))
    return [await round_view(session, r) for r in rows.scalars()]


async def numbered_round(session: AsyncSession, event_id: str, number: int) -> Round:
    """Round ``number`` of the event (404 when it has none)."""
    rnd = (
        await session.execute(select(Round).where(Round.event_id == event_id, Round.number == number))
    ).scalar_one_or_none()
    if rnd is None:
        raise NotFound(f"round {number} of event {event_id} not found")
    return rnd


async def round_by_number(session: AsyncSession, event_id: str, number: int) -> RoundView:
    return await round_view(session, await numbered_round(session, event_id, number))


# The round cache: ``GET …/rounds/{n}`` (the read clients poll most) kept by the event's mark, as
# the standings are (app/services/marked.py; docs/architecture.md "The standings cache").
ROUNDS_CACHED = 32  # rounds kept per process (the least recently served go first) ...
ROUNDS_CACHED_MATCHES = 10_000  # ... and matches in all of them (some 5 KB each, with renderings)
_rounds: MarkedCache[RoundView] = MarkedCache(ROUNDS_CACHED, ROUNDS_CACHED_MATCHES, lambda v: len(v.matches))


async def cached_round(session: AsyncSession, event_id: str, number: int) -> RoundView:
    """``round_by_number``, from this process's cache when the event has not changed since it was
    read. Only for a transaction that reads (a ``GET``)."""

    async def read() -> RoundView:
        view = await round_by_number(session, event_id, number)
        # the view outlives its session: its rows leave it now, so that nothing the session does
        # later (a rollback expires what it holds) touches them
        for row in (view.round, view.stage, *view.matches):
            if row in session:
                session.expunge(row)
        return view

    return await _rounds.get(session, event_id, number, read)
