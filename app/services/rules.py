"""Preset rules: what a seed's event does beyond the general engine, as hooks the lifecycle calls.

Every hook has the general engine's behaviour as its default, so a preset overrides only what
its source document changes (a semifinal filled with alternates, a hero rule on results, a final
between group winners, …). Each module of ``app/services/presets/`` exposes its ``RULES`` by preset
name; ``app/wiring.py`` puts them in the registry, and ``Registry.rules_for(event)`` finds them.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.games.adjudication import Adjudicator
from app.core.results import Report
from app.core.standings import StandingRow
from app.db.models import Entry, Event, Match, Round, Stage

Loc = tuple[str | int, ...]  # where a registration's row came from: ("rows", 3), ("csv", 5) or ()


class EventRules:
    """The general engine's behaviour; subclasses override single hooks."""

    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        """Checks or draws before the first stage opens (may raise Conflict; may cancel the event)."""

    async def on_register(
        self, session: AsyncSession, event: Event, characters: Sequence[list[str]], locs: Sequence[Loc]
    ) -> None:
        """Checks or draws as entries register, before they are written: ``characters`` are the
        new entries' lists, in their order (one registration or a whole list: ``locs`` is where
        each came from, ``()`` for a lone one), which a preset may fill (a pack drawn). May raise
        InvalidInput naming each bad one at its loc; nothing is then written."""

    def sealed_characters(self, event: Event) -> bool:
        """Whether entries' characters are sealed (shown to the organizer only) for now."""
        return False

    async def stage_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> list[list[str]] | None:
        """Tables of the stage's next round (its first when ``rounds`` is empty); None = the engine's."""
        return None

    async def check_tables(
        self, session: AsyncSession, event: Event, stage: Stage, tables: list[list[str]]
    ) -> None:
        """Check (InvalidInput) tables the organizer gives for a round (manual pairing, heats)."""

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        """Check (RuleViolation) or complete a normalized report before it is stored."""
        return report

    # Whether results of different matches of an event may be written side by side: true when the
    # preset's checks of a report (``check_report``) read nothing but the match itself. False, a
    # report has the event to itself from the moment its match is locked (app/services/results.py).
    parallel_results: bool = True
    # Whether the preset's checks of a report (``check_report``, ``adjudicator``, ``after_confirm``)
    # read the stage's ``details``: a result otherwise leaves them unloaded (a Swiss stage's list
    # of entries, hundreds of KB at 10,000 entries, would be decoded for every result).
    report_reads_stage_details: bool = False

    def organizer_confirms(self, event: Event) -> bool:
        """Whether players' claims that agree wait for the organizer's confirmation (``POST
        /v1/matches/{id}/confirm``) instead of confirming the match by themselves."""
        return False

    async def after_confirm(self, session: AsyncSession, event: Event, stage: Stage, match: Match) -> None:
        """Called when a match's result is confirmed or corrected."""

    async def advancing(
        self,
        session: AsyncSession,
        event: Event,
        closed: Stage,
        rows: list[StandingRow],
        nxt: Stage,
        *,
        record: bool = True,
    ) -> list[str] | None:
        """The entries the next stage takes, in seed order; None = the stage's ``advance`` rule.
        ``record=False`` asks what it would take now, writing nothing (a correction's check)."""
        return None

    async def stage_needed(
        self, session: AsyncSession, event: Event, stage: Stage, entrants: list[str]
    ) -> bool:
        """Whether the stage is played with these entrants (False: it closes at once, as the format's
        ``needed`` does for a playoff without a tie)."""
        return True

    async def stage_complete(self, session: AsyncSession, event: Event, stage: Stage) -> str | None:
        """An extra reason the stage cannot close yet (None = no objection)."""
        return None

    async def winner(self, session: AsyncSession, event: Event, found: str | None) -> str | None:
        """The finished event's winner; ``found`` is the engine's (its deciding stage's format)."""
        return found

    def adjudicator(self, event: Event, stage: Stage, match: Match) -> Adjudicator | None:
        """The judge of a ``game_log`` reported for this match; None = the game's catalog adjudicator."""
        return None

    # The registry's name of the adjudicator ``adjudicator`` hands in when the preset judges its
    # records itself for a game the catalog does not adjudicate (the Battle Royal's record of a
    # BATTLEBOOKS table): the console then offers each table's game log form.
    own_adjudicator: str | None = None


GENERIC = EventRules()
