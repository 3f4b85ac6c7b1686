"""The WBC Titan: The Arena event, preset ``wbc-hmwp`` (titan-arena.md "The event: HMW-P").

Stages by position: 0 heats (open tables of 3–5 that the organizer creates as entries join),
1 semifinal (winners then alternates, dealt to tables by snake seeding), 2 final (the table
winners). The pure rules are in app/core/games/titan_arena.py; this module loads rows and calls
them. Rulings:
- Tables the organizer gives (heats, or an override) seat 3–5 entries; a table of one (a bye)
  would be a free heat win and is refused too.
- Every place is determined ("every place must be determined"): a played result gives every
  seat its own place (tied scores need the game log — the WBC tie-break — or explicit places); a
  draw or time-out is refused; a forfeit names one winner. A played heat gives every seat's score
  (the points-behind criteria are built from them), and places never contradict the scores.
- The seeding, winners and alternates are recorded on the heats stage when it closes
  (``details.seeding``, ``winners``, ``alternates``, ``semifinal_size``, ``tables``) and read back
  by ``semifinal`` (with whether a later correction made them stale).
- A field too small for two semifinal tables (5 seats or fewer) skips the semifinal: the
  qualifiers play the final table directly.
- The final's rules version is kept on the final stage (``details.rules_choices``); a final
  reported with a game log whose ``variant`` differs from that version is refused (rule 5). Under
  Colossal Arena's rules the final's eight creatures are drawn from the twelve with the event seed
  (``core.final_creatures``), shown with the final's rules and the only ones its log may name.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.core.access import Access, Principal, authorize
from app.core.errors import Conflict, Forbidden, InvalidInput, Problem, RuleViolation
from app.core.games import titan_arena as core
from app.core.games.adjudication import Adjudicator
from app.core.results import Report
from app.core.standings import StandingRow
from app.core.vocabulary import EntryStatus, EventStatus, MatchStatus, Outcome, StageStatus
from app.db.models import Event, Match, Round, Stage
from app.services import outbox
from app.services.reads import (
    details_of,
    entries_by_id,
    entry_names,
    get_event,
    lock_event,
    set_details,
    stage_matches,
    stage_standings,
    stages_of,
)
from app.services.rules import EventRules

PRESET = "wbc-hmwp"
HEATS, SEMIFINAL, FINAL = 0, 1, 2


def _confirmed_places(pairs: list[tuple[Round, Match]]) -> list[list[tuple[str, int | None]]]:
    return [
        [(s.entry_id, s.place) for s in sorted(m.seats, key=lambda s: s.seat)]
        for _, m in pairs
        if m.status == MatchStatus.CONFIRMED and m.outcome not in (Outcome.VOID, None)
    ]


async def heat_seeding(session: AsyncSession, event: Event, heats: Stage) -> dict[str, Any]:
    """Seeding of the entries who played heats (active ones), and who won / placed second."""
    rows = await stage_standings(session, event, heats)
    entries = await entries_by_id(session, event.id)
    tables = _confirmed_places(await stage_matches(session, heats))
    winners = {e for t in tables for e, p in t if p == 1}
    seconds = {e for t in tables for e, p in t if p == 2}
    seeding = [r.entry_id for r in rows if r.games > 0 and entries[r.entry_id].status == EntryStatus.ACTIVE]
    field = core.semifinal_field(seeding, winners, seconds)
    return {
        "seeding": seeding,
        "winners": field.winners,
        "alternates": field.alternates,
        "semifinal": field.seats,
        "semifinal_size": field.size,
        "tables": core.table_count(len(field.seats)),
    }


class WbcHmwp(EventRules):
    report_reads_stage_details = True  # the final's version of the rules is in its details

    async def winner(self, session: AsyncSession, event: Event, found: str | None) -> str | None:
        """First of the final places (section 4), as ``GET /v1/events/{id}/places`` shows them."""
        firsts = [r["entry_id"] for r in (await places(session, event.id))["rows"] if r["place"] == 1]
        return firsts[0] if len(firsts) == 1 else None

    async def check_tables(
        self, session: AsyncSession, event: Event, stage: Stage, tables: list[list[str]]
    ) -> None:
        problems = [
            Problem(
                ("tables", t), f"a heat seats {core.MIN_PLAYERS}–{core.MAX_PLAYERS} players, not {len(table)}"
            )
            for t, table in enumerate(tables)
            if not core.MIN_PLAYERS <= len(table) <= core.MAX_PLAYERS
        ]
        if problems:
            raise InvalidInput(problems[0].msg, problems)

    async def stage_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> list[list[str]] | None:
        if rounds or stage.index == HEATS:
            return None
        details = details_of(stage)
        seeded = list(details.entries)
        if stage.index == SEMIFINAL:
            count = core.table_count(len(seeded))
            if count == 0:
                raise Conflict(f"a semifinal needs at least {core.FINAL_MIN} entries; it has {len(seeded)}")
            if not core.semifinal_needed(len(seeded)):
                note = f"{len(seeded)} qualifiers fit one table: no semifinal is played, they play the final"
                set_details(stage, replace(details, note=note))
                return []
            return core.snake_deal(seeded, count)
        return [seeded] if len(seeded) > 1 else []

    async def stage_needed(
        self, session: AsyncSession, event: Event, stage: Stage, entrants: list[str]
    ) -> bool:
        return stage.index != SEMIFINAL or core.semifinal_needed(len(entrants))

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        determined = "every place determined"
        if report.outcome in (Outcome.DRAW, Outcome.TIMEOUT):
            raise RuleViolation(
                determined,
                f"a {report.outcome} is not a result here: every table of this event determines every "
                "place; report each seat's score and place, or the game log",
            )
        negative = core.negative_scores([s.score for s in report.seats])
        if negative:
            problems = [
                Problem(("seats", i, "score"), "must be at least 0 (a score is never negative)")
                for i in negative
            ]
            raise InvalidInput("a Titan: The Arena score is never negative: " + problems[0].msg, problems)
        places = [s.place for s in report.seats]
        if report.outcome == Outcome.FORFEIT and places.count(1) != 1:
            raise RuleViolation(determined, "a forfeit names one winner: exactly one seat at place 1")
        if report.outcome != Outcome.PLAYED:
            return report
        if len(set(places)) != len(places):
            raise RuleViolation(
                determined,
                "tied places are not allowed: report the game log (the WBC tie-break on bets decides) "
                "or give every seat its own place",
            )
        missing = [
            Problem(("seats", i, "score"), "is required")
            for i, s in enumerate(report.seats)
            if s.score is None
        ]
        if missing and stage.index == HEATS:
            raise InvalidInput(
                "a heat needs every seat's score: the seeding's points-behind criteria are built from them",
                missing,
            )
        contradictions = core.place_contradictions([(s.place, s.score) for s in report.seats])
        if contradictions:
            problems = [
                Problem(
                    ("seats", i, "place"),
                    f"entry {report.seats[i].entry_id} is placed {report.seats[i].place} with "
                    f"{report.seats[i].score:g} points, ahead of entry {report.seats[j].entry_id} "
                    f"with {report.seats[j].score:g}",
                )
                for i, j in contradictions
            ]
            raise InvalidInput("the places contradict the scores: " + problems[0].msg, problems)
        return report

    def adjudicator(self, event: Event, stage: Stage, match: Match) -> Adjudicator | None:
        if stage.index != FINAL or _final_version(stage) != core.COLOSSAL:
            return None
        return partial(core.adjudicate_match, colossal_creatures=core.final_creatures(event.seed))

    async def after_confirm(self, session: AsyncSession, event: Event, stage: Stage, match: Match) -> None:
        if stage.index != FINAL or not match.game_log:
            return
        version = _final_version(stage)
        logged = core.VARIANTS.get(str(match.game_log.get("variant") or core.ORIGINAL))
        if logged != version:
            raise RuleViolation(
                "5", f"the final is played under the {version} rules, but the log is for {logged}"
            )

    async def stage_complete(self, session: AsyncSession, event: Event, stage: Stage) -> str | None:
        if stage.index != HEATS:
            return None
        seeding = await heat_seeding(session, event, stage)
        if len(seeding["semifinal"]) < core.FINAL_MIN:
            return (
                f"{len(seeding['semifinal'])} entries won or placed second in a heat; "
                f"the semifinal needs at least {core.FINAL_MIN}"
            )
        return None

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
        if closed.index == HEATS:
            seeding = await heat_seeding(session, event, closed)
            if record:
                set_details(closed, details_of(closed).with_extra(**seeding))
            return list(seeding["semifinal"])
        if closed.index == SEMIFINAL:
            matches = await stage_matches(session, closed)
            if not matches:  # too few for two tables: the qualifiers play the final directly
                return list(details_of(closed).entries)
            heats = (await stages_of(session, event.id))[HEATS]
            rank = {e: i for i, e in enumerate(details_of(heats).extra.get("seeding", []))}
            return core.final_seats(_confirmed_places(matches), rank)
        return None


def _final_version(final: Stage) -> str:
    details = details_of(final)
    return core.final_version(list(details.entries), details.extra.get("rules_choices", {}))


RULES: dict[str, EventRules] = {PRESET: WbcHmwp()}


# --- services behind app/api/titan_arena.py ----------------------------------------------------
async def _stages(session: AsyncSession, event: Event) -> list[Stage]:
    """The stages of a wbc-hmwp event (409 for an event of another preset)."""
    if event.preset != PRESET:
        raise Conflict(f"event {event.id} is not a {PRESET} event")
    return await stages_of(session, event.id)


async def final_rules(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """The finalists' answers, the final's rules version and, under Colossal Arena's rules, the
    eight creatures drawn for it."""
    event = await get_event(session, event_id)
    stages = await _stages(session, event)
    final = stages[FINAL] if len(stages) > FINAL else None
    details = details_of(final) if final is not None else None
    finalists = list(details.entries) if details is not None else []
    choices = dict(details.extra.get("rules_choices", {})) if details is not None else {}
    version = core.final_version(finalists, choices)
    return {
        "finalists": finalists,
        "choices": choices,
        "version": version,
        "creatures": list(core.final_creatures(event.seed)) if version == core.COLOSSAL else None,
        "open": final is not None and final.status == StageStatus.ACTIVE,
    }


async def semifinal(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """The semifinal's make-up: the seeding, the heat winners and the alternates, the target size
    before shrinking and the tables — as recorded when the heats closed (``stale`` when a later
    correction would change it), else as the heats stand now."""
    event = await get_event(session, event_id)
    stages = await _stages(session, event)
    if not stages:
        raise Conflict("the event has not started: there are no heats yet")
    heats = stages[HEATS]
    now = await heat_seeding(session, event, heats)
    kept = details_of(heats).extra
    recorded = heats.status == StageStatus.CLOSED and "seeding" in kept
    shown: dict[str, Any] = {k: kept.get(k) for k in now} if recorded else now
    names = await entry_names(session, event.id)
    winners, seconds = set(shown["winners"]), set(shown["alternates"])
    seats = list(shown["semifinal"])
    return {
        "recorded": recorded,
        "stale": recorded and any(shown[k] != now[k] for k in now),
        "seeding": [
            {
                "seed": i + 1,
                "entry_id": e,
                "name": names.get(e, ""),
                "role": "winner" if e in winners else "alternate" if e in seconds else None,
            }
            for i, e in enumerate(shown["seeding"])
        ],
        "winners": list(shown["winners"]),
        "alternates": list(shown["alternates"]),
        "seats": seats,
        "target_size": shown["semifinal_size"],
        "size": len(seats),
        "tables": shown["tables"],
        "straight_to_final": not core.semifinal_needed(len(seats)),
    }


async def choose_final_rules(
    session: AsyncSession, event_id: str, principal: Principal | None, entry_id: str | None, colossal: bool
) -> dict[str, Any]:
    """A finalist opts in (or out) of the Colossal Arena rules: an entry answers for itself, the
    organizer for the finalist it names."""
    who = authorize(principal, Access.ORGANIZER_OR_EVENT_ENTRY, event_id=event_id)
    if who.organizes(event_id):
        if entry_id is None:
            raise InvalidInput("name the finalist", [Problem(("entry_id",), "is required for the organizer")])
    else:
        if entry_id is not None and entry_id != who.entry_id:
            raise Forbidden("an entry answers only for itself")
        entry_id = who.entry_id
    assert entry_id is not None
    event = await lock_event(session, event_id)
    stages = await _stages(session, event)
    final = stages[FINAL] if len(stages) > FINAL else None
    if final is None or final.status != StageStatus.ACTIVE:
        raise Conflict("the final is not being played: its rules are chosen once the finalists are known")
    details = details_of(final)
    if entry_id not in details.entries:
        raise InvalidInput(
            f"entry {entry_id} is not a finalist",
            [Problem(("entry_id",), "must be a finalist of this event")],
        )
    if any(m.status == MatchStatus.CONFIRMED for _, m in await stage_matches(session, final)):
        raise Conflict("the final has been reported: its rules can no longer change")
    choices = {**details.extra.get("rules_choices", {}), entry_id: colossal}
    set_details(final, details.with_extra(rules_choices=choices))
    await session.flush()
    chosen = await final_rules(session, event_id)
    await outbox.final_rules_chosen(session, event_id, entry_id, colossal, chosen["version"])
    return chosen


async def places(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """Every place (section 4), from what has been played so far."""
    event = await get_event(session, event_id)
    stages = await _stages(session, event)
    entries = await entries_by_id(session, event.id)
    if not stages:
        return {"complete": False, "rows": []}
    heats = stages[HEATS]
    seeding = details_of(heats).extra.get("seeding")
    if seeding is None:
        seeding = (await heat_seeding(session, event, heats))["seeding"]
    semi: list[tuple[str, int | None]] = []
    final: list[tuple[str, int | None]] = []
    if len(stages) > SEMIFINAL:
        semi = [s for t in _confirmed_places(await stage_matches(session, stages[SEMIFINAL])) for s in t]
    if len(stages) > FINAL:
        final = [s for t in _confirmed_places(await stage_matches(session, stages[FINAL])) for s in t]
    rows = core.final_places(final, semi, seeding)
    return {
        "complete": event.status == EventStatus.FINISHED,
        "rows": [
            {"place": place, "entry_id": e, "name": entries[e].name, "decided_by": how}
            for e, place, how in rows
        ],
    }


async def statistics(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """Kills credited per entry and bets per creature over the event's confirmed game logs."""
    event = await get_event(session, event_id)
    entries = await entries_by_id(session, event.id)
    rows = await session.execute(
        select(Match)
        .where(Match.event_id == event.id, Match.status == MatchStatus.CONFIRMED)
        .options(selectinload(Match.seats))
    )
    kills: dict[str, int] = {}
    bets: dict[str, dict[str, float]] = {}
    deaths: dict[str, int] = {}
    games = 0
    for match in rows.scalars():
        if not match.game_log:
            continue
        try:
            log = core.parse_log(match.game_log)
        except InvalidInput:
            continue  # a record of another kind (not a Titan: The Arena log)
        seats = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
        if len(seats) != len(log.players):
            continue
        games += 1
        stats = core.statistics(log)
        for i, player in enumerate(log.players):
            kills[seats[i]] = kills.get(seats[i], 0) + stats.kills[player]
        for creature, row in stats.bets.items():
            total = bets.setdefault(creature, {"bets": 0, "points": 0.0, "secret": 0})
            for k, v in row.items():
                total[k] += v
        for d in log.deaths:
            deaths[d.creature] = deaths.get(d.creature, 0) + 1
    return {
        "games": games,
        "kills": [
            {"entry_id": e, "name": entries[e].name, "kills": n}
            for e, n in sorted(kills.items(), key=lambda kv: (-kv[1], entries[kv[0]].name))
        ],
        "bets": dict(sorted(bets.items())),
        "deaths": dict(sorted(deaths.items())),
    }
