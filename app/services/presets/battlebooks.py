"""BATTLEBOOKS Swiss presets' rules: Clash, Roll Call, Secret Wars (battlebooks.md; the rules and
rulings themselves are in app/core/games/battlebooks.py).

- ``before_start``: refuses ``rated`` without ``sanctioned``; lets the engine refuse a sanctioned
  event under 8; draws Secret Wars packs into the entries' characters; checks that every Clash entry
  named two different books and every Roll Call entry one hero; fills the Swiss stage's ``rounds``
  from the player count (Final Battle included) unless the organizer set them.
- ``check_report``: the hero rule on every seat's ``character`` against the entry's books and its
  other games of the same game round (filled in where the rule leaves one choice).
- ``organizer_confirms``: players' agreeing claims wait for the organizer's confirmation.

``score_card`` gathers an entry's games (and their result histories, for the sign-offs) for its score card (battlebooks.md "Common rules" — Score
cards; the card itself is built by ``app.core.games.battlebooks.score_card``).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import InvalidInput, Problem
from app.core.games import battlebooks as bb
from app.core.lifecycle import swiss_rounds
from app.core.results import Report
from app.core.scoring import score_game
from app.core.vocabulary import MatchStatus, Outcome, StageFormatName, StageStatus
from app.db.models import Entry, Event, Match, ResultHistory, Seat, Stage
from app.services.reads import (
    details_of,
    entries_by_id,
    game_result,
    get_entry,
    get_event,
    settings_of,
    stage_config,
    stage_matches,
    stage_rounds,
    stage_settings,
    stages_of,
)
from app.services.rules import EventRules

HEROLESS = (Outcome.VOID, Outcome.FORFEIT)


class BattlebooksSwiss(EventRules):
    def __init__(self, preset: str) -> None:
        self.preset = preset

    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        settings = settings_of(event)
        if settings.rated and not settings.sanctioned:
            msg = "only sanctioned BATTLEBOOKS events count for the world rankings; set rated to false"
            raise InvalidInput(msg, [Problem(("settings", "rated"), msg)])
        if settings.sanctioned and len(entries) < settings.entries_needed:
            return  # the engine refuses it with its own message
        if self.preset == "battlebooks-secret-wars":
            packs = bb.draw_packs(list(settings.catalog), len(entries), event.seed)
            for entry, pack in zip(entries, packs, strict=True):
                entry.characters = list(pack)
        problems = bb.registration_problems(
            self.preset, [(e.id, e.name, list(e.characters or [])) for e in entries]
        )
        if problems:
            what = "1 entry" if len(problems) == 1 else f"{len(problems)} entries"
            raise InvalidInput(f"{what} cannot play {self.preset}: {problems[0].msg}", problems)
        new = copy.deepcopy(event.settings)
        stages = new.get("stages") or []
        if stages and stages[0].get("format") == StageFormatName.SWISS and "rounds" not in stages[0]:
            stages[0]["rounds"] = bb.stage_rounds(self.preset, len(entries))
            event.settings = new

    def organizer_confirms(self, event: Event) -> bool:
        return True  # the organizer records the results; the card is signed by player and organizer

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
        if stage.format != StageFormatName.SWISS:
            return None, {}
        round_ids = [r.id for r in await stage_rounds(session, stage)]
        if match.round_id not in round_ids:
            return None, {}
        index = round_ids.index(match.round_id)
        settings = stage_settings(stage)
        block = settings.block
        total = swiss_rounds(settings.rounds, len(details_of(stage).entries))
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
                Match.status != MatchStatus.BYE,
                Seat.entry_id.in_(ids),
            )
        )
        heroes: dict[str, dict[int, str | None]] = {}
        for entry_id, character, round_id in rows.all():
            heroes.setdefault(entry_id, {})[game_of[round_id]] = character
        return pos.game, heroes


RULES: dict[str, EventRules] = {name: BattlebooksSwiss(name) for name in bb.PRESETS}


@dataclass(frozen=True)
class ScoreCardView:
    event: Event
    entry: Entry
    card: bb.ScoreCard


async def score_card(session: AsyncSession, event_id: str, entry_id: str) -> ScoreCardView:
    """An entry's score card: every game in round order with its opponent, heroes, first token,
    score and running totals, the round scores and the Final Battle."""
    event = await get_event(session, event_id)
    entry = await get_entry(session, event_id, entry_id)
    entries = await entries_by_id(session, event_id)
    games: list[bb.CardGame] = []
    rounds_in_stage: dict[int, int] = {}
    block = 1
    steps: dict[str, list[bb.HistoryStep]] = {}
    for row in (
        await session.execute(
            select(ResultHistory)
            .join(Seat, Seat.match_id == ResultHistory.match_id)
            .where(Seat.entry_id == entry_id)
            .order_by(ResultHistory.created_at, ResultHistory.match_version)
        )
    ).scalars():
        steps.setdefault(row.match_id, []).append(
            bb.HistoryStep(row.action, row.actor, row.payload, row.created_at)
        )
    for stage in await stages_of(session, event_id):
        if stage.status == StageStatus.PENDING:
            continue
        if stage.index == 0:
            settings = stage_settings(stage)
            block = settings.block
            if stage.format == StageFormatName.SWISS:
                rounds_in_stage[0] = swiss_rounds(settings.rounds, len(details_of(stage).entries))
        config = stage_config(event, stage).scoring
        played = await stage_matches(session, stage)
        order = list(dict.fromkeys(r.id for r, _ in played))
        for rnd, match in played:
            mine = next((s for s in match.seats if s.entry_id == entry_id), None)
            if mine is None:
                continue
            other = next((s for s in match.seats if s.entry_id != entry_id), None)
            points = differential = None
            result = None
            g = game_result(rnd, match)
            scored = score_game(g, config) if g is not None else None
            if scored is not None:
                seat = next(s for s in scored.seats if s.entry_id == entry_id)
                points, differential, result = seat.points, seat.differential, seat.result
            player_sign_off, organizer_sign_off = bb.sign_offs(steps.get(match.id, []), entry_id, entry.name)
            games.append(
                bb.CardGame(
                    round=rnd.number,
                    stage=stage.index,
                    index=order.index(rnd.id),
                    table=match.table,
                    status=match.status,
                    outcome=match.outcome,
                    opponent_id=other.entry_id if other else None,
                    opponent=entries[other.entry_id].name if other else None,
                    hero=mine.character,
                    opponent_hero=other.character if other else None,
                    points=points,
                    differential=differential,
                    result=result,
                    first_token=bool(mine.first_token),
                    player_sign_off=player_sign_off if scored is not None else None,
                    organizer_sign_off=organizer_sign_off if scored is not None else None,
                )
            )
    event_settings = settings_of(event)
    card = bb.score_card(
        games, rounds_in_stage, block, event_settings.game_minutes, event_settings.final_minutes
    )
    return ScoreCardView(event, entry, card)
