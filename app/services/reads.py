"""The reads every use case needs: an event (locked or not), its stages, entries, rounds and matches,
a stage's standings — and the typed views of the stored settings and stage details.

Every change to an event happens with the event row locked (``lock_event``: ``SELECT … FOR UPDATE``
on Postgres; SQLite transactions that may write take the write lock up front), so starting an event, pairing a
round and undoing one are serialized per event. A result is the one change that does not need the
whole event to itself: it holds the event (``FOR KEY SHARE``, which every ``lock_event`` waits for
and which waits for every ``lock_event``) and locks its own match, in the statement that reads the
match (``holding_match``), and takes the event's row for update only for the one statement that
writes its outbox rows at commit (``unmarked``; app/services/outbox.py) — so results of different
matches of one event are written side by side, while no round is paired, undone or swapped under
them (docs/architecture.md "The flow of one request").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Select, String, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, defer, selectinload

from app.core.errors import NotFound
from app.core.event_settings import EventSettings, StageSettings
from app.core.scoring import GameResult, SeatResult
from app.core.stage_details import StageDetails, parse_details
from app.core.standings import EntryInfo, StandingRow, StandingsConfig, compute_standings, standings_config
from app.core.vocabulary import EntryStatus, MatchStatus, Outcome, StageFormatName, StageStatus
from app.db.base import new_mark
from app.db.models import Entry, Event, Game, Match, Round, Seat, Stage
from app.db.session import transaction_state


# --------------------------------------------------------------------------- typed views
def settings_of(event: Event) -> EventSettings:
    return EventSettings.parse(event.settings)


def stage_settings(stage: Stage) -> StageSettings:
    return StageSettings.parse(stage.settings)


def details_of(stage: Stage) -> StageDetails:
    return parse_details(stage.format, stage.details or {})


def set_details(stage: Stage, details: StageDetails) -> None:
    stage.details = details.to_dict()


# --------------------------------------------------------------------------- rows
async def get_event(session: AsyncSession, event_id: str, *, for_update: bool = False) -> Event:
    """The event. Read through the session's identity map: a request whose services each ask for
    the event (a page: its view, rounds, standings, cross-table…) reads its row once; a lock
    (``for_update``) always goes to the database."""
    if for_update:
        stmt = select(Event).where(Event.id == event_id).with_for_update()
        event = (await session.execute(stmt)).scalar_one_or_none()
    else:
        event = await session.get(Event, event_id)
    if event is None:
        raise NotFound(f"event {event_id} not found")
    return event


async def lock_event(session: AsyncSession, event_id: str) -> Event:
    """The event, its row locked until the transaction ends. Lock before reading anything of the
    event that the change depends on; locking again in the same transaction is a no-op.

    Every change of an event locks it first (or, a result, holds it and marks it: ``mark_changed``),
    so the lock also replaces the event's ``standings_mark`` in the change's own transaction: a
    standings cached under the old mark is never served again once the change commits
    (app/services/standings.py). A Core statement, so neither the event's ``version`` (its ETag)
    nor ``updated_at`` moves."""
    event = await get_event(session, event_id, for_update=True)
    await mark_changed(session, event.id)
    return event


async def mark_changed(session: AsyncSession, event_id: str) -> None:
    """Replace the event's ``standings_mark`` (once per transaction). On Postgres the update takes
    the event row's update lock until the transaction ends: changes that mark the event are
    serialized from here on (an event's outbox rows are numbered in commit order because each is
    written with or after this: app/services/outbox.py)."""
    mark = unmarked(session, event_id)
    if mark is not None:
        await session.execute(MARK, mark)


# The mark's statement, built once; ``unmarked`` gives its parameters. A Core statement, so neither
# the event's ``version`` (its ETag) nor ``updated_at`` moves.
MARK = (
    update(Event)
    .where(Event.id == bindparam("event_id", type_=String))
    .values(standings_mark=bindparam("mark", type_=BigInteger), updated_at=Event.updated_at)
    .execution_options(synchronize_session=False)
)


def unmarked(session: AsyncSession | Session, event_id: str) -> dict[str, Any] | None:
    """The parameters of ``MARK`` for the event (a fresh mark) when this transaction has not marked
    it yet, the event counted as marked from here (the caller executes it: ``mark_changed``, or the
    outbox, as part of the statement that writes the event's rows at commit); None once marked."""
    marked = transaction_state(session, "marked_events", set[str])
    if event_id in marked:
        return None
    marked.add(event_id)
    return {"event_id": event_id, "mark": new_mark()}


def holding_match(stmt: Select[Any]) -> Select[Any]:
    """``stmt`` — a read of one match joined to its event — made to hold the event until the
    transaction ends against every change that locks it (``lock_event``), beside other holders, and
    then to lock the match: ``FOR KEY SHARE OF events FOR UPDATE OF matches`` on Postgres (in that
    order: a result waits for a change of the event's structure before it locks its match, which
    such a change may delete); on SQLite the writing transaction holds the whole database already."""
    return stmt.suffix_with("FOR KEY SHARE OF events FOR UPDATE OF matches", dialect="postgresql")


async def game_of(session: AsyncSession, event: Event) -> Game:
    game = await session.get(Game, event.game_key)
    assert game is not None  # games.key is a foreign key of events
    return game


async def count_entries(session: AsyncSession, event_id: str, active_only: bool = True) -> int:
    stmt = select(func.count()).select_from(Entry).where(Entry.event_id == event_id)
    if active_only:
        stmt = stmt.where(Entry.status == EntryStatus.ACTIVE)
    return int((await session.execute(stmt)).scalar_one())


async def get_entry(session: AsyncSession, event_id: str, entry_id: str) -> Entry:
    entry = await session.get(Entry, entry_id)
    if entry is None or entry.event_id != event_id:
        raise NotFound(f"entry {entry_id} not found in event {event_id}")
    return entry


async def entries_by_id(session: AsyncSession, event_id: str) -> dict[str, Entry]:
    rows = await session.execute(select(Entry).where(Entry.event_id == event_id))
    return {e.id: e for e in rows.scalars()}


async def entry_names(session: AsyncSession, event_id: str) -> dict[str, str]:
    rows = await session.execute(select(Entry.id, Entry.name).where(Entry.event_id == event_id))
    return {r.id: r.name for r in rows}


async def names_of(session: AsyncSession, entry_ids: Iterable[str]) -> dict[str, str]:
    """The names of these entries only (a match's seats, say)."""
    ids = list(dict.fromkeys(entry_ids))
    if not ids:
        return {}
    rows = await session.execute(select(Entry.id, Entry.name).where(Entry.id.in_(ids)))
    return {r.id: r.name for r in rows}


async def stages_of(session: AsyncSession, event_id: str) -> list[Stage]:
    rows = await session.execute(select(Stage).where(Stage.event_id == event_id).order_by(Stage.index))
    return list(rows.scalars())


async def active_stage(session: AsyncSession, event_id: str) -> Stage | None:
    for stage in await stages_of(session, event_id):
        if stage.status == StageStatus.ACTIVE:
            return stage
    return None


async def stage_rounds(session: AsyncSession, stage: Stage) -> list[Round]:
    """The stage's rounds in order, their stored ``details`` (a pairing's explanation: 2 MB for a
    10,000-entry Swiss round) unloaded: the formats and presets go by the rounds' numbers and ids; a
    later read of a round (``select(Round)``) fills it in."""
    rows = await session.execute(
        select(Round).where(Round.stage_id == stage.id).options(defer(Round.details)).order_by(Round.number)
    )
    return list(rows.scalars())


async def stage_matches(session: AsyncSession, stage: Stage) -> list[tuple[Round, Match]]:
    """Every match of the stage with its round, in round and table order, seats loaded. The round's
    stored ``details`` (a pairing's explanation, tens of KB) is left unloaded: it would be decoded
    once per match row; a later read of the round (``select(Round)``) fills it in."""
    rows = await session.execute(
        select(Round, Match)
        .join(Match, Match.round_id == Round.id)
        .where(Round.stage_id == stage.id)
        .options(defer(Round.details), selectinload(Match.seats))
        .order_by(Round.number, Match.table)
    )
    return [(r, m) for r, m in rows.all()]


async def load_match(session: AsyncSession, match_id: str, *, fresh: bool = False) -> Match:
    """The match with its seats; ``fresh`` re-reads a match already loaded (e.g. once its event is
    locked) instead of keeping the copy loaded before."""
    stmt = select(Match).where(Match.id == match_id).options(selectinload(Match.seats))
    if fresh:
        await session.flush()  # nothing pending is lost to the re-read
        stmt = stmt.execution_options(populate_existing=True)
    row = await session.execute(stmt)
    match = row.scalar_one_or_none()
    if match is None:
        raise NotFound(f"match {match_id} not found")
    return match


# --------------------------------------------------------------------------- standings
def game_result(rnd: Round, match: Match) -> GameResult | None:
    """A stored match as the standings engine's input; None while it is not final."""
    if match.status == MatchStatus.BYE:
        seat = match.seats[0]
        return GameResult(match.id, rnd.number, Outcome.BYE, (SeatResult(seat.entry_id, 1, None),))
    if match.status != MatchStatus.CONFIRMED or match.outcome is None:
        return None
    seats = tuple(
        SeatResult(s.entry_id, s.place, s.score, s.differential, s.violation)
        for s in sorted(match.seats, key=lambda s: s.seat)
    )
    return GameResult(match.id, rnd.number, match.outcome, seats)


def tiebreak_source(event: Event, stage: Stage | None) -> str:
    """Where a stage's tie-break chain comes from: ``settings``, or ``default:<format>``."""
    own = stage_settings(stage) if stage is not None else None
    if "tiebreaks" in settings_of(event).standings_document(own) or stage is None:
        return "settings"
    return f"default:{stage.format}"


TIEBREAKS_KEY = "default_tiebreaks"
"""The session's info key of every stage format's default tie-break chain, as each format declares
it (``StageFormat.tiebreaks``; put there by ``Registry.session_info``)."""


def default_tiebreaks(session: AsyncSession, stage_format: str) -> tuple[str, ...]:
    """The default tie-break chain of a stage format (formats.md "Default tie-breaks")."""
    chains = session.info.get(TIEBREAKS_KEY)
    if chains is None:
        raise RuntimeError("this session was made without the registry (make_sessionmaker(engine, registry))")
    chain: tuple[str, ...] = chains[StageFormatName(stage_format)]
    return chain


def stage_config(session: AsyncSession, event: Event, stage: Stage | None) -> StandingsConfig:
    """The event's standings settings, with the stage's own scoring / tiebreaks / basis where it sets
    them; without ``tiebreaks`` anywhere, the stage format's default chain (``default_tiebreaks``)."""
    own = stage_settings(stage) if stage is not None else None
    document = settings_of(event).standings_document(own)
    if "tiebreaks" not in document and stage is not None:
        document["tiebreaks"] = list(default_tiebreaks(session, stage.format))
    return standings_config(document)


@dataclass(frozen=True, slots=True)
class PlayedSeat:
    """One seat of a match, as standings and pairing read it (columns, not a loaded row)."""

    entry_id: str
    seat: int
    place: int | None
    score: float | None
    differential: float | None
    violation: bool


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match of a stage, as standings and pairing read it: its seats in seat order."""

    id: str
    round: int
    table: int
    status: str
    outcome: str | None
    seats: tuple[PlayedSeat, ...]

    def game(self) -> GameResult | None:
        """The standings engine's input (as ``game_result``); None while it is not final."""
        seats = tuple((s.entry_id, s.place, s.score, s.differential, s.violation) for s in self.seats)
        return final_game(self.id, (self.round, self.status, self.outcome, seats))


FinalSeat = tuple[str, int | None, float | None, float | None, bool]
"""A seat of a final match as ``final_matches`` reads it: entry, place, score, differential, violation."""
FinalMatch = tuple[int, str, str | None, tuple[FinalSeat, ...]]
"""A final match as ``final_matches`` reads it: round number, status, outcome, its seats in order."""


def final_game(match_id: str, match: FinalMatch) -> GameResult | None:
    """The standings engine's input of a match; None while it is not final."""
    number, status, outcome, seats = match
    if status == MatchStatus.BYE:
        return GameResult(match_id, number, Outcome.BYE, (SeatResult(seats[0][0], 1, None),))
    if status != MatchStatus.CONFIRMED or outcome is None:
        return None
    return GameResult(match_id, number, outcome, tuple(SeatResult(*seat) for seat in seats))


FINAL = (MatchStatus.CONFIRMED, MatchStatus.BYE)  # the statuses ``final_game`` makes a game of
FINAL_CHUNK = 500  # matches named in one statement of ``final_matches(only=…)``


async def final_versions(session: AsyncSession, stage: Stage) -> dict[str, int]:
    """The versions of the stage's final matches by id, in round and table order: two columns of
    the matches alone, a fraction of ``final_matches``' read. A change of a match's result or of
    its seats bumps its version (``results._write_match``, ``lifecycle.swap_entries``, a BGA
    finalist's replacement), so a match read before at the same version reads the same."""
    await session.flush()
    stmt = (
        select(Match.id, Match.version)
        .join(Round, Match.round_id == Round.id)
        .where(Round.stage_id == stage.id, Match.status.in_(FINAL))
        .order_by(Round.number, Match.table)
    )
    return {mid: version for mid, version in await (await session.connection()).execute(stmt)}


async def final_matches(
    session: AsyncSession, stage: Stage, only: Sequence[str] | None = None
) -> tuple[dict[str, FinalMatch], dict[str, int]]:
    """The stage's final matches (those ``final_game`` makes a game of) by id, in round and table
    order, read as plain tuples (cheap to read and to compare with an earlier read:
    ``services/standings.py``), and the version each was read at; ``only``: just these matches."""
    await session.flush()
    stmt = (
        select(
            Match.id,
            Match.version,
            Round.number,
            Match.status,
            Match.outcome,
            Seat.entry_id,
            Seat.place,
            Seat.score,
            Seat.differential,
            Seat.violation,
        )
        .join(Match, Match.round_id == Round.id)
        .join(Seat, Seat.match_id == Match.id)
        .where(Round.stage_id == stage.id, Match.status.in_(FINAL))
        .order_by(Round.number, Match.table, Seat.seat)
    )
    out: dict[str, FinalMatch] = {}
    versions: dict[str, int] = {}
    connection = await session.connection()
    parts = [None] if only is None else [only[i : i + FINAL_CHUNK] for i in range(0, len(only), FINAL_CHUNK)]
    for part in parts:
        current: str | None = None
        head: tuple[int, str, str | None] = (0, "", None)
        seats: list[FinalSeat] = []
        # through the connection: a Core statement's rows, without the ORM's loading of each row
        rows = await connection.execute(stmt if part is None else stmt.where(Match.id.in_(part)))
        for mid, version, number, status, outcome, entry_id, place, score, diff, violation in rows:
            if mid != current:
                if current is not None:
                    out[current] = (*head, tuple(seats))
                current, head, seats = mid, (number, status, outcome), []
                versions[mid] = version
            seats.append((entry_id, place, score, diff, bool(violation)))
        if current is not None:
            out[current] = (*head, tuple(seats))
    if any(m[1] == MatchStatus.CONFIRMED and m[2] is None for m in out.values()):
        out = {mid: m for mid, m in out.items() if not (m[1] == MatchStatus.CONFIRMED and m[2] is None)}
    return out, versions


async def stage_played(session: AsyncSession, stage: Stage, *, final_only: bool = False) -> list[PlayedMatch]:
    """Every match of the stage (``final_only``: confirmed ones and byes), in round and table order,
    read as columns in one statement: no rows are loaded into the session, so the cost is the data.
    What the session holds unflushed is flushed first, so the read sees it."""
    await session.flush()
    stmt = (
        select(
            Round.number,
            Match.id,
            Match.table,
            Match.status,
            Match.outcome,
            Seat.entry_id,
            Seat.seat,
            Seat.place,
            Seat.score,
            Seat.differential,
            Seat.violation,
        )
        .join(Match, Match.round_id == Round.id)
        .join(Seat, Seat.match_id == Match.id)
        .where(Round.stage_id == stage.id)
        .order_by(Round.number, Match.table, Seat.seat)
    )
    if final_only:
        stmt = stmt.where(Match.status.in_(FINAL))
    out: list[PlayedMatch] = []
    current: str | None = None
    seats: list[PlayedSeat] = []
    head: tuple[int, str, int, str, str | None] | None = None
    for (
        number,
        mid,
        table,
        status,
        outcome,
        entry_id,
        seat,
        place,
        score,
        diff,
        violation,
    ) in await session.execute(stmt):
        if mid != current:
            if head is not None:
                out.append(PlayedMatch(head[1], head[0], head[2], head[3], head[4], tuple(seats)))
            current, head, seats = mid, (number, mid, table, status, outcome), []
        seats.append(PlayedSeat(entry_id, seat, place, score, diff, bool(violation)))
    if head is not None:
        out.append(PlayedMatch(head[1], head[0], head[2], head[3], head[4], tuple(seats)))
    return out


@dataclass(frozen=True, slots=True)
class EntryRow:
    """One entry as standings and pairing read it (columns, not a loaded row)."""

    name: str
    tiebreak_value: float | None
    status: str
    group: str | None
    club: str | None
    rating_at_entry: float | None


async def entry_rows(session: AsyncSession, event_id: str) -> dict[str, EntryRow]:
    """Every entry of the event by id, read as columns in one statement (the session flushed first;
    through the connection: a Core statement's rows, without the ORM's handling of its result)."""
    await session.flush()
    rows = await (await session.connection()).execute(
        select(
            Entry.id,
            Entry.name,
            Entry.tiebreak_value,
            Entry.status,
            Entry.group,
            Entry.club,
            Entry.rating_at_entry,
        ).where(Entry.event_id == event_id)
    )
    return {
        entry_id: EntryRow(name, tiebreak, status, group, club, rating)
        for entry_id, name, tiebreak, status, group, club, rating in rows
    }


async def stage_standings(
    session: AsyncSession,
    event: Event,
    stage: Stage | None,
    group: str | None = None,
    *,
    played: Sequence[PlayedMatch] | None = None,
    entries: dict[str, EntryRow] | None = None,
) -> list[StandingRow]:
    """The stage's standings from what the database holds (the session's changes flushed first),
    read as columns: a clean recompute every time. ``played`` and ``entries``: the stage's matches
    and the event's entries as ``stage_played`` and ``entry_rows`` just read them, for a caller that
    needs them too (a pairing), so that they are read once."""
    if entries is None:
        entries = await entry_rows(session, event.id)
    infos = standings_entries(entries, stage, group)
    wanted = {e.entry_id for e in infos}
    games: list[GameResult] = []
    if stage is not None:
        for match in played if played is not None else await stage_played(session, stage, final_only=True):
            g = match.game()  # None while not final
            if g is not None and all(s.entry_id in wanted for s in g.seats):
                games.append(g)
    return compute_standings(infos, games, stage_config(session, event, stage), seed=event.seed)


def standings_entries(
    entries: dict[str, EntryRow], stage: Stage | None, group: str | None
) -> list[EntryInfo]:
    """The entries a stage's standings rank (of ``group``), from the event's ``entry_rows``."""
    details = details_of(stage) if stage is not None else None
    ids = list(details.entries) if details is not None else list(entries)
    if group is not None:
        groups = details.groups if details is not None else {}
        ids = [e for e in ids if groups.get(e, entries[e].group) == group]
    return [EntryInfo(e, entries[e].name, entries[e].tiebreak_value, entries[e].status) for e in ids]
