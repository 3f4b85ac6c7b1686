"""The interface every stage format implements (formats.md "Words", "Pairing and scheduling").

A format answers four questions for the lifecycle (``app/services/lifecycle.py``):
- ``start``: what the stage creates when it opens (its first round, a schedule job, nothing);
  ``prepare`` first adds what it draws to the stage's details (e.g. a round robin's schedule);
- ``next_tables``: the tables of its next round, or a ``Conflict`` saying why there is none;
- ``incomplete``: why it cannot close yet (None once it can);
- ``entrants``: which entries of the previous stage's standings it takes (and ``needed``: whether it
  is played at all with them).
Three flags say how it runs: ``late_entries`` (a late entry may join it while it runs),
``concurrent_tables`` (the organizer may open tables while others are still being played) and
``sized_tables`` (its tables have the stage's ``table_size`` seats, so a duel stage's tables seat
two; a free-for-all or a heat seats whoever plays, within the game's limits). A format that releases
every game at once says so in ``nothing_to_pair``, and names in ``moot`` the games it no longer
needs (a decided series' games still out), which the stage voids as it closes.
A preset's rules (``app/services/rules.py``) may still replace the tables of any round.

Each format also declares, on its class, what the rest of the product derives from it (checked as
the class is defined: a format missing one does not import):
- ``tiebreaks``: the chain its standings rank by when neither the event nor the stage names
  ``tiebreaks`` (formats.md "Default tie-breaks"; ``reads.stage_config``);
- ``display``: how the event's pages show it (``Display``: ``app/web/views.py``, ``_event_body.html``);
- ``trf``: the tournament kind a TRF-16 file names for a 2-seat stage of it, or None: no TRF export
  (``app/services/exports.py``);
- ``label``: the key of its name in the pages' words (``app/web/i18n.py``, checked there).
``next_tables`` answers a ``Drawn`` round: its tables, why, and whether its seats were balanced.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.event_settings import StageSettings
from app.core.lifecycle import RankedEntry, select_advancing
from app.core.stage_details import StageDetails
from app.core.standings import StandingRow
from app.core.tiebreaks import chain_problems
from app.core.vocabulary import MatchStatus, Outcome, StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.reads import details_of
from app.services.rounds import Drawn, write_drawn


def bracket_winner(matches: list[tuple[Round, Match]]) -> str | None:
    """The winner of a bracket: first place at its last decided game (the final, or the grand
    final's reset); None when that game shares first place."""
    decided = [m for _, m in matches if m.status == MatchStatus.CONFIRMED and m.outcome != Outcome.VOID]
    if not decided:
        return None
    firsts = [s.entry_id for s in decided[-1].seats if s.place == 1]
    return firsts[0] if len(firsts) == 1 else None


class Display(StrEnum):
    """How the event's pages show a stage (web.md "Paths", `/e/{event_id}`): every format's rounds are
    listed table by table (``tables``); a round robin's standings add its cross-table
    (``cross_table``); a bracket's rounds stand side by side as well (``bracket``)."""

    TABLES = "tables"
    CROSS_TABLE = "cross_table"
    BRACKET = "bracket"


DECLARED = ("name", "tiebreaks", "display", "trf", "label")
"""What every format declares on its class (nothing has a default)."""


class StageFormat:
    name: ClassVar[StageFormatName]
    tiebreaks: ClassVar[tuple[str, ...]]
    display: ClassVar[Display]
    trf: ClassVar[str | None]
    label: ClassVar[str]
    late_entries: ClassVar[bool] = False
    concurrent_tables: ClassVar[bool] = False
    sized_tables: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        missing = [a for a in DECLARED if not hasattr(cls, a)]
        if missing:
            raise TypeError(f"stage format {cls.__name__} does not declare {', '.join(missing)}")
        if not isinstance(cls.name, StageFormatName):
            raise TypeError(f"stage format {cls.__name__}: name {cls.name!r} is not a StageFormatName")
        if not isinstance(cls.display, Display):
            raise TypeError(f"stage format {cls.__name__}: display {cls.display!r} is not a Display")
        if not isinstance(cls.tiebreaks, tuple) or chain_problems(list(cls.tiebreaks)):
            raise TypeError(f"stage format {cls.__name__}: tiebreaks {cls.tiebreaks!r} is not a chain")
        if not (isinstance(cls.label, str) and cls.label) or not (
            cls.trf is None or isinstance(cls.trf, str)
        ):
            raise TypeError(f"stage format {cls.__name__}: label must be a key, trf a kind or None")

    def prepare(
        self, event: Event, stage: Stage, settings: StageSettings, details: StageDetails
    ) -> StageDetails:
        """The stage's details as it opens, with whatever this format draws up front."""
        return details

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        """What the stage creates as it opens; by default its first generated round."""
        return await self.first_round(session, event, stage)

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        """The next round: its tables and the reasons its pairing gives; Conflict if there is none."""
        raise Conflict(f"a {stage.format} stage is one table; it has been created")

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        """Why the stage cannot close yet (its open matches are checked before); None when it can."""
        return None

    def nothing_to_pair(self, stage: Stage) -> str | None:
        """Why "pair the next round" has nothing to do in this stage, whatever is still being played
        (every game was released at once); None when rounds are paired one by one."""
        return None

    def all_paired(self, stage: Stage, paired: int) -> bool:
        """Whether the stage's rounds are all paired once ``paired`` are (the pages offer no next
        round then); False where the stage pairs until it is decided."""
        return False

    async def moot(self, session: AsyncSession, event: Event, stage: Stage) -> list[Match]:
        """Open games of the stage that no longer decide anything (voided as the stage closes)."""
        return []

    def winner(self, rows: list[StandingRow], matches: list[tuple[Round, Match]]) -> str | None:
        """Who won the stage once it is played: by default the one entry ranked first by its
        standings (None when first place is shared)."""
        firsts = [r.entry_id for r in rows if r.rank == 1]
        return firsts[0] if len(firsts) == 1 else None

    def entrants(self, ranked: list[RankedEntry], settings: StageSettings) -> list[str]:
        """The entries this stage takes from the previous stage's standings, in seed order."""
        return select_advancing(ranked, settings.advance)

    def cannot_undo(self, stage: Stage, rounds: list[Round]) -> str | None:
        """Why the stage's last round cannot be deleted and paired again (None when it can): by
        default a stage's first round is what it drew as it opened, and is not drawn again."""
        if len(rounds) <= 1:
            return f"it is the first round of a {stage.format} stage, drawn as the stage opened"
        return None

    def needed(self, entrants: list[str]) -> bool:
        """Whether the stage is played with these entrants (a playoff without a tie is skipped)."""
        return True

    async def first_round(self, session: AsyncSession, event: Event, stage: Stage) -> Round | None:
        """The stage's first generated round (none for a stage without entries)."""
        if not details_of(stage).entries:
            return None
        rnd, _ = await write_drawn(session, event, stage, await self.next_tables(session, event, stage, []))
        return rnd


def one_table_incomplete(stage: Stage, rounds: list[Round]) -> str | None:
    """A stage that is one table (free-for-all, playoff) closes once that table exists."""
    if not rounds and len(details_of(stage).entries) > 1:
        return "the stage's table has not been created"
    return None
