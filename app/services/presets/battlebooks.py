"""BATTLEBOOKS Swiss presets' rules: Clash, Roll Call, Secret Wars (battlebooks.md; the rules and
rulings themselves are in app/core/games/battlebooks.py).

- ``on_register``: Secret Wars assigns the entry's pack (recorded as handed out, or drawn);
  ``sealed_characters``: packs are sealed until the event starts (game 1's pairings).
- ``before_start``: refuses ``rated`` without ``sanctioned``; lets the engine refuse a sanctioned
  event under 8; checks that every Clash entry named two different books, every Roll Call entry one
  hero and every Secret Wars entry a pack of the catalog, no two alike; fills the Swiss stage's ``rounds``
  from the player count (Final Battle included) unless the organizer set them.
- ``check_report``: the hero rule on every seat's ``character`` against the entry's books and its
  other games of the same game round (filled in where the rule leaves one choice, or from the hero
  declared before the game; another hero than the declared one is refused).
- ``organizer_confirms``: players' agreeing claims wait for the organizer's confirmation.

``declare_hero`` declares a seat's hero on a pending match, checked by the same rule; a result then
names that hero or none (filled in) until it is confirmed.

``score_card`` gathers an entry's games (and their result histories, for the sign-offs) for its score card (battlebooks.md "Common rules" — Score
cards; the card itself is built by ``app.core.games.battlebooks.score_card``).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Access, Principal, authorize
from app.core.concurrency import check_if_match
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.games import battlebooks as bb
from app.core.lifecycle import swiss_rounds
from app.core.results import Report
from app.core.scoring import score_game
from app.core.vocabulary import EventStatus, MatchStatus, Outcome, StageFormatName, StageStatus
from app.db.models import Entry, Event, Match, ResultHistory, Seat, Stage
from app.services import outbox
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
from app.services.results import match_for_change, record
from app.services.rules import EventRules, Loc

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
        if self.preset == bb.SEALED:
            for entry in entries:  # packs are assigned at registration; an entry without one gets it now
                if not entry.characters:
                    entry.characters = list(await self._draw(session, event))
        problems = bb.registration_problems(
            self.preset, [(e.id, e.name, list(e.characters or [])) for e in entries], settings.catalog
        )
        if problems:
            what = "1 entry" if len(problems) == 1 else f"{len(problems)} entries"
            raise InvalidInput(f"{what} cannot play {self.preset}: {problems[0].msg}", problems)
        new = copy.deepcopy(event.settings)
        stages = new.get("stages") or []
        if stages and stages[0].get("format") == StageFormatName.SWISS and "rounds" not in stages[0]:
            stages[0]["rounds"] = bb.stage_rounds(self.preset, len(entries))
            event.settings = new

    async def on_register(
        self, session: AsyncSession, event: Event, characters: Sequence[list[str]], locs: Sequence[Loc]
    ) -> None:
        """Secret Wars: each pack is recorded as handed out (the entry's two books) or drawn now, in
        the entries' order, each seeing the packs of the ones before it."""
        if self.preset != bb.SEALED:
            return
        catalog = settings_of(event).catalog
        packs = await self._packs(session, event)
        problems: list[Problem] = []
        for books, loc in zip(characters, locs, strict=True):
            if books:
                found = bb.pack_problems(catalog, books, packs, (*loc, "characters"))
                problems.extend(found)
                if found:
                    continue
            else:
                books.extend(bb.next_pack(catalog, event.seed, packs))
            packs.append(list(books))
        if problems:
            raise InvalidInput(problems[0].msg, problems)

    def sealed_characters(self, event: Event) -> bool:
        return self.preset == bb.SEALED and event.status == EventStatus.REGISTRATION

    async def _packs(self, session: AsyncSession, event: Event) -> list[list[str]]:
        """Every pack handed out in the event so far."""
        rows = await session.execute(select(Entry.characters).where(Entry.event_id == event.id))
        return [list(c) for c in rows.scalars() if c]

    async def _draw(self, session: AsyncSession, event: Event) -> tuple[str, str]:
        await session.flush()  # the packs of entries added in this transaction count too
        return bb.next_pack(settings_of(event).catalog, event.seed, await self._packs(session, event))

    # a report's heroes are checked against the entries' other games of the game round
    parallel_results = False
    report_reads_stage_details = True

    def organizer_confirms(self, event: Event) -> bool:
        return True  # the organizer records the results; the card is signed by player and organizer

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        ids = [s.entry_id for s in report.seats]
        entries = {e.id: e for e in (await session.execute(select(Entry).where(Entry.id.in_(ids)))).scalars()}
        # before the result is confirmed, a seat's character is the hero declared for the game
        declared = (
            {} if match.status == MatchStatus.CONFIRMED else {s.entry_id: s.character for s in match.seats}
        )
        named = {
            s.entry_id: bb.check_declared(entries[s.entry_id].name, declared.get(s.entry_id), s.character)
            for s in report.seats
        }
        heroes = await self.heroes(session, stage, match, entries, named, report.outcome not in HEROLESS)
        seats = tuple(dataclasses.replace(s, character=heroes[s.entry_id]) for s in report.seats)
        return dataclasses.replace(report, seats=seats)

    async def heroes(
        self,
        session: AsyncSession,
        stage: Stage,
        match: Match,
        entries: dict[str, Entry],
        named: dict[str, str | None],
        required: bool,
    ) -> dict[str, str | None]:
        """Each seated entry's hero under the preset's rule (RuleViolation naming it), filled in
        where the rule leaves one choice."""
        out = dict(named)
        if self.preset in bb.ONE_HERO:
            for entry_id, character in named.items():
                e = entries[entry_id]
                if e.characters:
                    out[entry_id] = bb.check_one_hero(e.name, list(e.characters), character)
            return out
        game, block = await self._block(session, stage, match, list(named))
        for entry_id, character in named.items():
            e = entries[entry_id]
            books = list(e.characters or [])
            if not books:
                continue  # an entry without books (settings overridden): nothing to check against
            out[entry_id] = bb.check_hero(e.name, books, character, game, block.get(entry_id, {}), required)
        return out

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


SWISS: dict[str, BattlebooksSwiss] = {name: BattlebooksSwiss(name) for name in bb.PRESETS}
RULES: dict[str, EventRules] = dict(SWISS)


async def declare_hero(
    session: AsyncSession,
    match_id: str,
    principal: Principal | None,
    entry_id: str,
    character: str,
    if_match: str | None,
) -> Match:
    """A seat's hero declared before the game (battlebooks.md "Score cards"): by the seat's own entry
    or the organizer, on a pending match of a BATTLEBOOKS Swiss event, checked by the hero rule."""
    event, stage, _, match, who = await match_for_change(
        session, match_id, principal, Access.ORGANIZER_OR_SEATED
    )
    authorize(who, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event.id, entry_id=entry_id)
    if if_match is not None:
        check_if_match(if_match, match.version)
    rules = SWISS.get(event.preset or "")
    if rules is None:
        raise Conflict("heroes are declared before a game in the BATTLEBOOKS Swiss events only")
    seat = next((s for s in match.seats if s.entry_id == entry_id), None)
    if seat is None:
        msg = f"entry {entry_id} is not at this table"
        raise InvalidInput(msg, [Problem(("entry_id",), msg)])
    if event.status != EventStatus.RUNNING or stage.status != StageStatus.ACTIVE:
        raise Conflict("this match's stage is closed")
    if match.status != MatchStatus.PENDING:
        raise Conflict(f"a hero is declared before the game; this match is {match.status}")
    entry = await get_entry(session, event.id, entry_id)
    heroes = await rules.heroes(session, stage, match, {entry_id: entry}, {entry_id: character}, True)
    seat.character = heroes[entry_id]
    match.details = {**(match.details or {}), "revision": int((match.details or {}).get("revision", 0)) + 1}
    await record(session, match, "hero", who.actor, {"entry_id": entry_id, "character": seat.character})
    await outbox.hero_declared(session, event, stage, match, entry_id, seat.character)
    return match


@dataclass(frozen=True)
class ScoreCardView:
    event: Event
    entry: Entry
    card: bb.ScoreCard
    books: list[str]  # none while a Secret Wars pack is sealed


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
        config = stage_config(session, event, stage).scoring
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
    rules = SWISS.get(event.preset or "")
    sealed = rules is not None and rules.sealed_characters(event)
    return ScoreCardView(event, entry, card, [] if sealed else list(entry.characters or []))


async def score_cards(session: AsyncSession, event_id: str) -> list[ScoreCardView]:
    """Every entry's score card, in registration order (the whole event in one file)."""
    await get_event(session, event_id)
    entries = sorted((await entries_by_id(session, event_id)).values(), key=lambda e: (e.created_at, e.id))
    return [await score_card(session, event_id, e.id) for e in entries]
