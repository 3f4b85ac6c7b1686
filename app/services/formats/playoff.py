"""Playoff (formats.md "Pairing and scheduling" — Playoff): one game among the entries tied for first
in the stage before, skipped when there is no tie.

Rulings:
- A playoff of duels (``table_size`` 2) among three or more tied entries is a knockout of two-player
  games: a single elimination seeded by the tie-break value (the highest is seed 1; missing seeds are
  byes for the top seeds), each round paired like a single elimination's (BATTLEBOOKS: "a two player
  one game playoff").
- A multi-seat playoff among more tied entries than one table of the game seats is not drawn into
  tables by the service; the stage says so (``note``) and the organizer creates its tables
  (``POST …/rounds {tables}``).
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.event_settings import StageSettings
from app.core.lifecycle import RankedEntry, tied_for_first
from app.core.stage_details import BracketDetails
from app.core.vocabulary import StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.formats.base import Display, StageFormat, one_table_incomplete
from app.services.formats.single_elimination import SingleElimination, open_bracket
from app.services.reads import details_of, entries_by_id, game_of, set_details, stage_settings
from app.services.rounds import Drawn, create_round


def _knockout(stage: Stage) -> bool:
    details = details_of(stage)
    return isinstance(details, BracketDetails) and details.bracket is not None


class Playoff(StageFormat):
    name = StageFormatName.PLAYOFF
    tiebreaks = ()
    display = Display.BRACKET
    trf = None
    label = "stage_playoff"
    knockout = SingleElimination()

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        details = details_of(stage)
        entry_ids = list(details.entries)
        if len(entry_ids) > 2 and stage_settings(stage).table_size == 2:
            entries = await entries_by_id(session, event.id)
            seeds = sorted(entry_ids, key=lambda e: (-(entries[e].tiebreak_value or 0.0), e))
            set_details(stage, replace(details, entries=tuple(seeds)))
            return await open_bracket(session, event, stage, "seeded")
        game = await game_of(session, event)
        if len(entry_ids) > game.max_seats:
            note = (
                f"{len(entry_ids)} entries tied for first; a table of {game.key} seats at most "
                f"{game.max_seats}: create the playoff's tables explicitly"
            )
            set_details(stage, replace(details, note=note))
            return None
        if len(entry_ids) > 1:
            return await create_round(session, event, stage, [entry_ids])
        return None

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        if _knockout(stage):
            return await self.knockout.next_tables(session, event, stage, rounds)
        raise Conflict("a playoff is one table; it has been created")

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        if _knockout(stage):
            return await self.knockout.incomplete(session, event, stage, rounds, matches)
        return one_table_incomplete(stage, rounds)

    def entrants(self, ranked: list[RankedEntry], settings: StageSettings) -> list[str]:
        return tied_for_first(ranked)

    def needed(self, entrants: list[str]) -> bool:
        return len(entrants) > 1
