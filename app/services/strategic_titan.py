"""A match's Strategic Titan record, kept event by event (strategic-titan.md; api.md
``POST /v1/matches/{id}/log``).

The organizer of the match's event, or an entry seated at the match, appends one event at a time;
the whole record is replayed with it (app/core/games/strategic_titan), and a broken rule is refused
with nothing stored. The first append fixes ``players`` (the seats' entry names, seat 0 first);
the game's options travel in the record's first event, ``start``. Only matches of a game whose
adjudicator is ``strategic-titan`` keep such a record, and a bye, void or confirmed match takes no
more events. Appends to one match are serialized by its row lock; ``If-Match`` (optional) guards
against appending to a record that changed since the client read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Access, Principal, authorize
from app.core.concurrency import check_if_match
from app.core.errors import Conflict, NotFound, RuleViolation
from app.core.games import strategic_titan as st
from app.core.vocabulary import MatchStatus
from app.db.models import Entry, Event, Game, Match, Seat
from app.services.offload import off_loop

ADJUDICATOR = "strategic-titan"
CLOSED = (MatchStatus.BYE, MatchStatus.VOID, MatchStatus.CONFIRMED)


@dataclass(frozen=True)
class LogView:
    match: Match
    record: dict[str, Any]
    replay: st.ReplayResult


@dataclass(frozen=True)
class Appended:
    index: int
    state: dict[str, Any]
    version: int


async def _load(
    session: AsyncSession, match_id: str, *, for_update: bool = False
) -> tuple[Match, list[tuple[str, str]]]:
    stmt = select(Match).where(Match.id == match_id)
    if for_update:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    match = (await session.execute(stmt)).scalar_one_or_none()
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    seats = (
        await session.execute(
            select(Entry.id, Entry.name)
            .join(Seat, Seat.entry_id == Entry.id)
            .where(Seat.match_id == match_id)
            .order_by(Seat.seat)
        )
    ).all()
    return match, [(row.id, row.name) for row in seats]


async def _keeps_a_record(session: AsyncSession, match: Match) -> None:
    adjudicator = (
        await session.execute(
            select(Game.adjudicator).join(Event, Event.game_key == Game.key).where(Event.id == match.event_id)
        )
    ).scalar_one_or_none()
    if adjudicator != ADJUDICATOR:
        raise Conflict("this match's game does not keep a Strategic Titan record")


def _record(match: Match, seats: list[tuple[str, str]]) -> dict[str, Any]:
    log = match.game_log or {}
    return {
        "players": list(log.get("players") or [name for _, name in seats]),
        "options": dict(log.get("options") or {}),
        "events": list(log.get("events") or []),
    }


async def append_event(
    session: AsyncSession,
    match_id: str,
    principal: Principal | None,
    if_match: str | None,
    event: dict[str, Any],
) -> Appended:
    """Append one event to the match's record; a broken rule is a RuleViolation and nothing is stored."""
    match, seats = await _load(session, match_id, for_update=True)
    authorize(principal, Access.ORGANIZER_OR_SEATED, event_id=match.event_id, seated={e for e, _ in seats})
    await _keeps_a_record(session, match)
    if if_match is not None:
        check_if_match(if_match, match.version)
    if match.status in CLOSED:
        raise Conflict(f"the match is {match.status}; its record takes no more events")
    record = _record(match, seats)
    events = [*record["events"], event]
    result = await off_loop(st.replay, record["players"], record["options"], events)
    if result.violation is not None:
        raise RuleViolation(result.violation.rule, result.violation.message)
    match.game_log = {**record, "events": events}
    await session.flush()
    return Appended(len(events) - 1, result.state.to_dict(), match.version)


async def read_log(session: AsyncSession, match_id: str) -> LogView:
    """The match's record and the state it replays to (public, like every result)."""
    match, seats = await _load(session, match_id)
    await _keeps_a_record(session, match)
    record = _record(match, seats)
    replayed = await off_loop(st.replay, record["players"], record["options"], record["events"])
    return LogView(match, record, replayed)
