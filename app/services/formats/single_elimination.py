"""Single elimination (formats.md "Pairing and scheduling" — Single elimination).

2 seats: the bracket is drawn when the stage opens (``method`` ``draw`` or ``seeded``; byes advance)
and each round pairs the winners of the last in bracket order. A drawn match goes to the higher
tie-break value; a void match stops the bracket until the organizer corrects it. N seats: tables of
``table_size``, the top ``advance_per_table`` of each table go on, until one final table is played.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.pairing.elimination import multi_seat_next, multi_seat_tables, single_elimination
from app.core.stage_details import BracketDetails
from app.core.standings import StandingRow
from app.core.vocabulary import MatchStatus, Outcome, StageFormatName
from app.db.models import Entry, Event, Job, Match, Round, Stage
from app.services.formats.base import Display, StageFormat, bracket_winner
from app.services.reads import details_of, entries_by_id, set_details, stage_matches, stage_settings
from app.services.rounds import Drawn, create_round


def _winner(match: Match, entries: dict[str, Entry]) -> str:
    if match.status == MatchStatus.BYE:
        return match.seats[0].entry_id
    if match.outcome == Outcome.VOID:
        raise Conflict(f"match {match.id} is void: the organizer must correct it before the bracket goes on")
    firsts = [s.entry_id for s in match.seats if s.place == 1]
    pool = firsts or [s.entry_id for s in match.seats]
    return max(pool, key=lambda e: (entries[e].tiebreak_value or 0.0, e))


async def open_bracket(session: AsyncSession, event: Event, stage: Stage, method: str) -> Round:
    """Draw (or seed, in the order of the stage's entries) a 2-seat bracket and create its first round."""
    details = details_of(stage)
    assert isinstance(details, BracketDetails)
    bracket = single_elimination(
        list(details.entries),
        method=method,
        seed=event.seed,
        purpose=f"stage:{stage.index}:bracket",
        best_of=stage_settings(stage).best_of,
    )
    tables = [[e for e in (m.first, m.second) if e is not None] for m in bracket.matches[0]]
    set_details(stage, replace(details, bracket={"slots": bracket.slots, "rounds": bracket.rounds}))
    return await create_round(session, event, stage, tables)


class SingleElimination(StageFormat):
    name = StageFormatName.SINGLE_ELIMINATION
    tiebreaks = ("wins", "buchholz")
    display = Display.BRACKET
    trf = None
    label = "stage_single_elimination"

    def winner(self, rows: list[StandingRow], matches: list[tuple[Round, Match]]) -> str | None:
        return bracket_winner(matches)

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        settings = stage_settings(stage)
        if settings.table_size > 2:
            tables = multi_seat_tables(list(details_of(stage).entries), settings.table_size)
            return await create_round(session, event, stage, tables)
        return await open_bracket(session, event, stage, settings.method)

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        if not rounds:
            raise Conflict("the bracket has no first round")
        settings = stage_settings(stage)
        last = [m for _, m in await stage_matches(session, stage) if m.round_id == rounds[-1].id]
        if settings.table_size > 2:
            if len(last) == 1:
                raise Conflict("the final table has been played; advance to close the stage")
            results = [
                [s.entry_id for s in sorted(m.seats, key=lambda s: (s.place or 99, s.seat))] for m in last
            ]
            return Drawn(multi_seat_next(results, settings.advance_per_table, settings.table_size).tables)
        entries = await entries_by_id(session, event.id)
        winners = [_winner(m, entries) for m in sorted(last, key=lambda m: m.table)]
        if len(winners) == 1:
            raise Conflict("the bracket is decided; advance to close the stage")
        return Drawn([winners[i : i + 2] for i in range(0, len(winners), 2)])

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        last = [m for r, m in matches if rounds and r.id == rounds[-1].id]
        if len([m for m in last if m.status != MatchStatus.BYE]) != 1 or len(last) != 1:
            return "the bracket is not decided yet"
        return None
