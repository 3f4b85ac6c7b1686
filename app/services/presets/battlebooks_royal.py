"""Rules of the BATTLEBOOKS non-sanctioned presets (battlebooks.md "battlebooks-last-man-standing",
"battlebooks-battle-royal"); the rulings are listed in ``app.core.games.battlebooks_royal``.

- Both: never sanctioned, never rated — an event of these presets with ``sanctioned`` or ``rated``
  switched on is refused at start, so no result of theirs ever reaches a rating pool.
- Last Man Standing: every game must have one winner (no draw, time-out or shared first place).
- Battle Royal: 4–8 active players at start; a result may carry the table's record (``game_log``),
  which the preset checks against the match's seats and first token holder and turns into places.
"""

from __future__ import annotations

from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, RuleViolation
from app.core.games import battlebooks_royal as core
from app.core.games.adjudication import Adjudicator
from app.core.results import Report
from app.core.vocabulary import Outcome
from app.db.models import Entry, Event, Match, Stage
from app.services.reads import settings_of
from app.services.rules import EventRules


def _refuse_rankings(event: Event, what: str) -> None:
    settings = settings_of(event)
    for key, on in (("sanctioned", settings.sanctioned), ("rated", settings.rated)):
        if on:
            raise RuleViolation(
                "battlebooks/non-sanctioned",
                f"{what} is a non-sanctioned format and never counts for world rankings: "
                f"set {key!r} to false",
            )


class LastManStanding(EventRules):
    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        _refuse_rankings(event, "Last Man Standing")

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        if report.outcome == Outcome.VOID:
            return report
        winners = [s for s in report.seats if s.place == 1]
        if report.outcome in (Outcome.DRAW, Outcome.TIMEOUT) or len(winners) != 1:
            raise RuleViolation(
                "last-man-standing/winner",
                "an elimination game has one winner, who advances: report the winner "
                "(a draw, time-out or shared first place cannot be reported)",
            )
        return report


class BattleRoyal(EventRules):
    own_adjudicator = "battlebooks-royal"

    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        _refuse_rankings(event, "Battle Royal")
        n = len(entries)
        if not core.ROYAL_MIN <= n <= core.ROYAL_MAX:
            raise Conflict(
                f"Battle Royal is one table of {core.ROYAL_MIN}–{core.ROYAL_MAX} players; "
                f"this event has {n} active entries"
            )

    def adjudicator(self, event: Event, stage: Stage, match: Match) -> Adjudicator | None:
        seats = sorted(match.seats, key=lambda s: s.seat)
        first = next((i for i, s in enumerate(seats) if s.first_token), None)
        return partial(core.adjudicate_match, first_token=first)


RULES: dict[str, EventRules] = {core.LAST_MAN_STANDING: LastManStanding(), core.BATTLE_ROYAL: BattleRoyal()}
