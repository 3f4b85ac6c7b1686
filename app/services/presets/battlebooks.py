"""BATTLEBOOKS Swiss presets' rules: Clash, Roll Call, Secret Wars (battlebooks.md; the rules and
rulings themselves are in app/core/games/battlebooks.py).

- ``before_start``: refuses ``rated`` without ``sanctioned``; lets the engine refuse a sanctioned
  event under 8; draws Secret Wars packs into the entries' characters; checks that every Clash entry
  named two different books and every Roll Call entry one hero; fills the Swiss stage's ``rounds``
  from the player count (Final Battle included) unless the organizer set them.
- ``check_report``: the hero rule on every seat's ``character`` against the entry's books and its
  other games of the same game round (filled in where the rule leaves one choice).
"""

from __future__ import annotations

import copy
import dataclasses

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import InvalidInput, Problem
from app.core.games import battlebooks as bb
from app.core.lifecycle import swiss_rounds
from app.core.results import Report
from app.db.models import Entry, Event, Match, Seat, Stage
from app.services.lifecycle import stage_rounds
from app.services.rules import RULES, EventRules

HEROLESS = ("void", "forfeit")


class BattlebooksSwiss(EventRules):
    def __init__(self, preset: str) -> None:
        self.preset = preset

    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        settings = event.settings
        if settings.get("rated") and not settings.get("sanctioned"):
            msg = "only sanctioned BATTLEBOOKS events count for the world rankings; set rated to false"
            raise InvalidInput(msg, [Problem(("settings", "rated"), msg)])
        if settings.get("sanctioned") and len(entries) < 8:
            return  # the engine refuses it with its own message
        if self.preset == "battlebooks-secret-wars":
            catalog = settings.get("catalog")
            packs = bb.draw_packs(catalog if isinstance(catalog, list) else [], len(entries), event.seed)
            for entry, pack in zip(entries, packs, strict=True):
                entry.characters = list(pack)
        problems = bb.registration_problems(
            self.preset, [(e.id, e.name, list(e.characters or [])) for e in entries]
        )
        if problems:
            what = "1 entry" if len(problems) == 1 else f"{len(problems)} entries"
            raise InvalidInput(f"{what} cannot play {self.preset}: {problems[0].msg}", problems)
        new = copy.deepcopy(settings)
        stages = new.get("stages") or []
        if stages and stages[0].get("format") == "swiss" and "rounds" not in stages[0]:
            stages[0]["rounds"] = bb.stage_rounds(self.preset, len(entries))
            event.settings = new

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        ids = [s.entry_id for s in report.seats]
        entries = {e.id: e for e in (await session.execute(select(Entry).where(Entry.id.in_(ids)))).scalars()}
        seats = list(report.seats)
        if self.preset in bb.ONE_HERO:
            for i, s in enumerate(seats):
                e = entries[s.entry_id]
                if e.characters:
                    seats[i] = dataclasses.replace(
                        s, character=bb.check_one_hero(e.name, list(e.characters), s.character)
                    )
            return dataclasses.replace(report, seats=tuple(seats))

        game, heroes = await self._block(session, stage, match, ids)
        required = report.outcome not in HEROLESS
        for i, s in enumerate(seats):
            e = entries[s.entry_id]
            books = list(e.characters or [])
            if not books:
                continue  # an entry without books (settings overridden): nothing to check against
            hero = bb.check_hero(e.name, books, s.character, game, heroes.get(s.entry_id, {}), required)
            seats[i] = dataclasses.replace(s, character=hero)
        return dataclasses.replace(report, seats=tuple(seats))

    async def _block(
        self, session: AsyncSession, stage: Stage, match: Match, ids: list[str]
    ) -> tuple[int | None, dict[str, dict[int, str | None]]]:
        """The match's game number in its game round (None: Final Battle / playoff: either book) and
        the seated entries' heroes in the other games of that game round."""
        if stage.format != "swiss":
            return None, {}
        round_ids = [r.id for r in await stage_rounds(session, stage)]
        if match.round_id not in round_ids:
            return None, {}
        index = round_ids.index(match.round_id)
        block = int(stage.settings.get("block", bb.BLOCK))
        total = swiss_rounds(stage.settings, len(stage.details.get("entries", [])))
        pos = bb.position(index, total, block)
        if pos.final or block == 1:
            return None, {}
        first = index - (index % block)
        game_of = {rid: k + 1 for k, rid in enumerate(round_ids[first : first + block])}
        rows = await session.execute(
            select(Seat.entry_id, Seat.character, Match.round_id)
            .join(Match, Match.id == Seat.match_id)
            .where(
                Match.round_id.in_(list(game_of)),
                Match.id != match.id,
                Match.status != "bye",
                Seat.entry_id.in_(ids),
            )
        )
        heroes: dict[str, dict[int, str | None]] = {}
        for entry_id, character, round_id in rows.all():
            heroes.setdefault(entry_id, {})[game_of[round_id]] = character
        return pos.game, heroes


for _name in bb.PRESETS:
    RULES[_name] = BattlebooksSwiss(_name)
