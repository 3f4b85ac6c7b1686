"""Double elimination (formats.md "Pairing and scheduling" — Double elimination): the bracket of
app/core/pairing/double_elimination.py, drawn when the stage opens (``method`` ``draw`` or
``seeded``, byes, ``best_of``, ``grand_final_reset``) and kept in the stage's details. Each round
plays every bracket match whose two entries are known; its tables follow the bracket order, so the
results of the rounds so far, replayed in order, say where the bracket stands. A drawn match goes to
the higher tie-break value; a void match stops the bracket until the organizer corrects it. 2 seats.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, InvalidInput, Problem
from app.core.pairing.double_elimination import (
    BracketState,
    DoubleBracket,
    bracket_state,
    build_double_elimination,
)
from app.core.stage_details import BracketDetails
from app.core.standings import StandingRow
from app.core.vocabulary import MatchStatus, StageFormatName
from app.db.models import Entry, Event, Job, Match, Round, Stage
from app.services.formats.base import Display, StageFormat, bracket_winner
from app.services.formats.explanations import BracketExplanation
from app.services.formats.single_elimination import _winner
from app.services.reads import details_of, entries_by_id, set_details, stage_matches, stage_settings
from app.services.rounds import Drawn


def _bracket(stage: Stage) -> DoubleBracket:
    details = details_of(stage)
    assert isinstance(details, BracketDetails) and details.bracket is not None
    return DoubleBracket.from_dict(details.bracket)


def _replay(
    bracket: DoubleBracket, rounds: list[Round], matches: list[tuple[Round, Match]], entries: dict[str, Entry]
) -> BracketState:
    """The bracket after every decided round: round r's tables are the matches ready before it."""
    results: dict[str, tuple[str, str]] = {}
    by_round: dict[str, list[Match]] = {}
    for rnd, m in matches:
        by_round.setdefault(rnd.id, []).append(m)
    for rnd in rounds:
        state = bracket_state(bracket, results)
        played = sorted(by_round.get(rnd.id, []), key=lambda m: m.table)
        if len(played) != len(state.ready):
            raise Conflict(
                f"round {rnd.number} does not follow the bracket: it has {len(played)} tables, the bracket {len(state.ready)}"
            )
        for key, match in zip(state.ready, played, strict=True):
            if match.status != MatchStatus.CONFIRMED:
                return bracket_state(bracket, results)
            ids = [s.entry_id for s in match.seats]
            winner = _winner(match, entries)
            loser = next(e for e in ids if e != winner)
            results[key] = (winner, loser)
    try:
        return bracket_state(bracket, results)
    except InvalidInput as exc:  # a swap moved an entry into a match of the bracket it was not in
        raise Conflict(exc.detail) from None


class DoubleElimination(StageFormat):
    name = StageFormatName.DOUBLE_ELIMINATION
    tiebreaks = ("wins", "buchholz")
    display = Display.BRACKET
    trf = None
    label = "stage_double_elimination"

    def winner(self, rows: list[StandingRow], matches: list[tuple[Round, Match]]) -> str | None:
        return bracket_winner(matches)

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        settings = stage_settings(stage)
        details = details_of(stage)
        assert isinstance(details, BracketDetails)
        if settings.table_size != 2:
            raise InvalidInput(
                "double elimination is played at tables of 2",
                [Problem(("settings", "stages", stage.index, "table_size"), "must be 2")],
            )
        bracket = build_double_elimination(
            list(details.entries),
            method=settings.method,
            seed=event.seed,
            purpose=f"stage:{stage.index}:bracket",
            best_of=settings.best_of,
            reset=settings.grand_final_reset,
        )
        set_details(stage, replace(details, bracket=bracket.to_dict()))
        return await self.first_round(session, event, stage)

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        bracket = _bracket(stage)
        state = _replay(
            bracket, rounds, await stage_matches(session, stage), await entries_by_id(session, event.id)
        )
        if state.champion is not None:
            raise Conflict("the bracket is decided; advance to close the stage")
        if not state.ready:
            raise Conflict("no bracket match is ready")
        bracket_why: BracketExplanation = {"method": "double_elimination", "matches": list(state.ready)}
        return Drawn([[a, b] for a, b in (state.sides[k] for k in state.ready) if a and b], bracket_why)

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        state = _replay(_bracket(stage), rounds, matches, await entries_by_id(session, event.id))
        return None if state.champion is not None else "the bracket is not decided yet"

    def cannot_undo(self, stage: Stage, rounds: list[Round]) -> str | None:
        return None  # every round, the first too, is replayed from the bracket
