"""Playoff (formats.md "Pairing and scheduling" — Playoff): one game among the entries tied for first
in the stage before, skipped when there is no tie.

Ruling: a tie wider than one table of the game is not drawn into tables by the service; the stage
says so (``note``) and the organizer creates its tables (``POST …/rounds {tables}``).
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.event_settings import StageSettings
from app.core.lifecycle import RankedEntry, tied_for_first
from app.core.vocabulary import StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.formats.base import StageFormat, one_table_incomplete
from app.services.reads import details_of, game_of, set_details
from app.services.rounds import create_round


class Playoff(StageFormat):
    name = StageFormatName.PLAYOFF

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        details = details_of(stage)
        entry_ids = list(details.entries)
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

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        return one_table_incomplete(stage, rounds)

    def entrants(self, ranked: list[RankedEntry], settings: StageSettings) -> list[str]:
        return tied_for_first(ranked)

    def needed(self, entrants: list[str]) -> bool:
        return len(entrants) > 1
