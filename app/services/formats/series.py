"""Series (formats.md "Pairing and scheduling" — Series): best-of-``best_of`` games between two
entries, seats alternating game by game, until one has won more than half (a drawn or undecided
series goes to the higher tie-break value in the standings).

Games are released one at a time, or with ``release: all`` every game at the start, side by side;
then a series decided before its last games are reported no longer needs them (``moot``): they are
voided as the stage closes."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.lifecycle import series_winner
from app.core.vocabulary import OPEN_MATCH, MatchStatus, Outcome, StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.formats.base import Display, StageFormat
from app.services.reads import details_of, stage_matches, stage_settings
from app.services.rounds import Drawn, create_round


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
    tiebreaks = ("wins",)
    display = Display.BRACKET
    trf = None
    label = "stage_series"

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        entry_ids = list(details_of(stage).entries)
        if len(entry_ids) != 2:
            raise Conflict(f"a series is played by 2 entries; this stage has {len(entry_ids)}")
        settings = stage_settings(stage)
        if not settings.releases_all:
            return await create_round(session, event, stage, [entry_ids])
        a, b = entry_ids
        games = [
            await create_round(session, event, stage, [[a, b] if g % 2 == 0 else [b, a]])
            for g in range(settings.best_of)
        ]
        return games[0]

    def nothing_to_pair(self, stage: Stage) -> str | None:
        if not stage_settings(stage).releases_all:
            return None
        return (
            "every game of this series was released at once (release: all): there is no next game "
            "to pair; the stage closes (advance) once the series is decided"
        )

    async def moot(self, session: AsyncSession, event: Event, stage: Stage) -> list[Match]:
        matches = await stage_matches(session, stage)
        if series_winner(series_wins(stage, matches), stage_settings(stage).best_of) is None:
            return []
        return [m for _, m in matches if m.status in OPEN_MATCH]

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        best_of = stage_settings(stage).best_of
        wins = series_wins(stage, await stage_matches(session, stage))
        played = len(rounds)
        if series_winner(wins, best_of) or played >= best_of:
            raise Conflict("the series is decided; advance to close the stage")
        a, b = details_of(stage).entries[:2]
        return Drawn([[a, b] if played % 2 == 0 else [b, a]])

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
