"""Series (formats.md "Pairing and scheduling" — Series): best-of-``best_of`` games between two
entries, seats alternating game by game, until one has won more than half (a drawn or undecided
series goes to the higher tie-break value in the standings)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.lifecycle import series_winner
from app.core.vocabulary import MatchStatus, Outcome, StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.formats.base import StageFormat
from app.services.reads import details_of, stage_matches, stage_settings
from app.services.rounds import create_round


def series_wins(stage: Stage, matches: list[tuple[Round, Match]]) -> dict[str, int]:
    wins = {e: 0 for e in details_of(stage).entries}
    for _, m in matches:
        if m.status == MatchStatus.CONFIRMED and m.outcome in (Outcome.PLAYED, Outcome.FORFEIT):
            firsts = [s.entry_id for s in m.seats if s.place == 1]
            if len(firsts) == 1:
                wins[firsts[0]] = wins.get(firsts[0], 0) + 1
    return wins


class Series(StageFormat):
    name = StageFormatName.SERIES

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        entry_ids = list(details_of(stage).entries)
        if len(entry_ids) != 2:
            raise Conflict(f"a series is played by 2 entries; this stage has {len(entry_ids)}")
        return await create_round(session, event, stage, [entry_ids])

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round], explain: dict[str, Any]
    ) -> list[list[str]]:
        best_of = stage_settings(stage).best_of
        wins = series_wins(stage, await stage_matches(session, stage))
        played = len(rounds)
        if series_winner(wins, best_of) or played >= best_of:
            raise Conflict("the series is decided; advance to close the stage")
        a, b = details_of(stage).entries[:2]
        return [[a, b] if played % 2 == 0 else [b, a]]

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        best_of = stage_settings(stage).best_of
        if series_winner(series_wins(stage, matches), best_of) is None and len(rounds) < best_of:
            return "the series is not decided yet"
        return None
