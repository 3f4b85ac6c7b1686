"""Running an event: start, pair the next round, advance a stage (api.md; formats.md "Stages").

Every change here happens with the event row locked (``SELECT … FOR UPDATE`` on Postgres; SQLite
transactions take the write lock up front), so starting an event, pairing a round and confirming a
result are serialized per event: two concurrent "pair next round" calls produce one round.
Round numbers run through the whole event (stage 2's first round follows stage 1's last).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.core import lifecycle as core
from app.core import rng
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.event_settings import STAGE_STANDINGS_KEYS
from app.core.pairing.elimination import multi_seat_next, multi_seat_tables, single_elimination
from app.core.pairing.groups import split_groups
from app.core.pairing.round_robin import round_robin
from app.core.pairing.swiss import SwissEntry, first_round_order, pair_swiss
from app.core.pairing.tables import TableEntry, pair_tables
from app.core.scoring import GameResult, SeatResult
from app.core.standings import EntryInfo, StandingRow, StandingsConfig, compute_standings, standings_config
from app.db.base import utcnow
from app.db.models import Entry, Event, Game, Job, Match, Round, Seat, Stage
from app.jobs import create_job
from app.services.rules import rules_for

OPEN = ("pending", "reported", "disputed")
GROUP_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --------------------------------------------------------------------------- loading
async def lock_event(session: AsyncSession, event_id: str) -> Event:
    from app.services.events import get_event

    return await get_event(session, event_id, for_update=True)


async def stages_of(session: AsyncSession, event_id: str) -> list[Stage]:
    rows = await session.execute(select(Stage).where(Stage.event_id == event_id).order_by(Stage.index))
    return list(rows.scalars())


async def active_stage(session: AsyncSession, event_id: str) -> Stage | None:
    for stage in await stages_of(session, event_id):
        if stage.status == "active":
            return stage
    return None


async def entries_by_id(session: AsyncSession, event_id: str) -> dict[str, Entry]:
    rows = await session.execute(select(Entry).where(Entry.event_id == event_id))
    return {e.id: e for e in rows.scalars()}


async def stage_matches(session: AsyncSession, stage: Stage) -> list[tuple[Round, Match]]:
    rows = await session.execute(
        select(Round, Match)
        .join(Match, Match.round_id == Round.id)
        .where(Round.stage_id == stage.id)
        .options(selectinload(Match.seats))
        .order_by(Round.number, Match.table)
    )
    return [(r, m) for r, m in rows.all()]


async def stage_rounds(session: AsyncSession, stage: Stage) -> list[Round]:
    rows = await session.execute(select(Round).where(Round.stage_id == stage.id).order_by(Round.number))
    return list(rows.scalars())


def game_result(rnd: Round, match: Match) -> GameResult | None:
    """A stored match as the standings engine's input; None while it is not final."""
    if match.status == "bye":
        seat = match.seats[0]
        return GameResult(match.id, rnd.number, "bye", (SeatResult(seat.entry_id, 1, None),))
    if match.status != "confirmed" or match.outcome is None:
        return None
    seats = tuple(
        SeatResult(s.entry_id, s.place, s.score, s.differential, s.violation)
        for s in sorted(match.seats, key=lambda s: s.seat)
    )
    return GameResult(match.id, rnd.number, match.outcome, seats)


async def stage_standings(
    session: AsyncSession, event: Event, stage: Stage | None, group: str | None = None
) -> list[StandingRow]:
    entries = await entries_by_id(session, event.id)
    ids = list(stage.details.get("entries", [])) if stage is not None else list(entries)
    if group is not None:
        groups = stage.details.get("groups", {}) if stage is not None else {}
        ids = [e for e in ids if groups.get(e, entries[e].group) == group]
    wanted = set(ids)
    games: list[GameResult] = []
    if stage is not None:
        for rnd, match in await stage_matches(session, stage):
            g = game_result(rnd, match)
            if g is not None and all(s.entry_id in wanted for s in g.seats):
                games.append(g)
    infos = [EntryInfo(e, entries[e].name, entries[e].tiebreak_value, entries[e].status) for e in ids]
    return compute_standings(infos, games, stage_config(event, stage), seed=event.seed)


def stage_config(event: Event, stage: Stage | None) -> StandingsConfig:
    """The event's standings settings, with the stage's own scoring / tiebreaks / basis where it sets them."""
    settings = dict(event.settings)
    if stage is not None:
        settings.update({k: v for k, v in stage.settings.items() if k in STAGE_STANDINGS_KEYS})
    return standings_config(settings)


# --------------------------------------------------------------------------- rounds
async def _next_round_number(session: AsyncSession, event_id: str) -> int:
    n = await session.execute(select(func.count()).select_from(Round).where(Round.event_id == event_id))
    return int(n.scalar_one()) + 1


async def create_round(
    session: AsyncSession,
    event: Event,
    stage: Stage,
    tables: list[list[str]],
    details: dict[str, Any] | None = None,
) -> Round:
    """One round of exactly these tables; a table of one entry is a bye. Each table's first token
    holder is drawn from the event seed."""
    number = await _next_round_number(session, event.id)
    rnd = Round(event_id=event.id, stage_id=stage.id, number=number, details=details or {})
    session.add(rnd)
    await session.flush()
    best_of = int(stage.settings.get("best_of", 1))
    now = utcnow()
    for t, table in enumerate(tables, start=1):
        bye = len(table) == 1
        first = (
            0
            if bye
            else rng.stream(event.seed, f"round:{number}:table:{t}:first_token").randrange(len(table))
        )
        match = Match(
            event_id=event.id,
            round_id=rnd.id,
            table=t,
            status="bye" if bye else "pending",
            outcome="bye" if bye else None,
            best_of=best_of,
            reported_at=now if bye else None,
            details={},
        )
        match.seats = [
            Seat(entry_id=e, seat=i, first_token=(i == first), place=1 if bye else None)
            for i, e in enumerate(table)
        ]
        session.add(match)
    await session.flush()
    return rnd


async def _check_tables(
    session: AsyncSession, event: Event, stage: Stage, tables: list[list[str]]
) -> list[list[str]]:
    game = await session.get(Game, event.game_key)
    assert game is not None
    entries = await entries_by_id(session, event.id)
    in_stage = set(stage.details.get("entries", []))
    problems: list[Problem] = []
    seen: set[str] = set()
    if not tables:
        problems.append(Problem(("tables",), "give at least one table"))
    for t, table in enumerate(tables):
        size = len(table)
        if size != 1 and not game.min_seats <= size <= game.max_seats:
            problems.append(
                Problem(
                    ("tables", t),
                    f"a table of {size} is outside the {game.min_seats}–{game.max_seats} seats of {game.key}",
                )
            )
        for i, entry_id in enumerate(table):
            loc: tuple[str | int, ...] = ("tables", t, i)
            entry = entries.get(entry_id)
            if entry is None:
                problems.append(Problem(loc, f"entry {entry_id} is not in this event"))
            elif entry_id not in in_stage:
                problems.append(Problem(loc, f"entry {entry_id} does not play in this stage"))
            elif entry.status != "active":
                problems.append(Problem(loc, f"entry {entry_id} is {entry.status}"))
            if entry_id in seen:
                problems.append(Problem(loc, f"entry {entry_id} is seated twice in this round"))
            seen.add(entry_id)
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    return tables


def _active_ids(stage: Stage, entries: dict[str, Entry]) -> list[str]:
    return [e for e in stage.details.get("entries", []) if entries[e].status == "active"]


async def _swiss_tables(
    session: AsyncSession, event: Event, stage: Stage, played: int, explain: dict[str, Any]
) -> list[list[str]]:
    """The next Swiss round; ``explain`` receives why (each pair's cost parts, the bye, repeats)."""
    entries = await entries_by_id(session, event.id)
    active = _active_ids(stage, entries)
    size = int(stage.settings.get("table_size", 2))
    if played == 0:
        if stage.settings.get("first_round") == "rating":
            order = sorted(active, key=lambda e: (-(entries[e].rating_at_entry or 0.0), e))
        else:
            order = first_round_order(active, event.seed, f"stage:{stage.index}:round:1")
        rows_points = {e: 0.0 for e in order}
    else:
        rows = await stage_standings(session, event, stage)
        rows_points = {r.entry_id: r.points for r in rows}
        order = [r.entry_id for r in rows if r.entry_id in set(active)]
    met: dict[str, dict[str, int]] = {e: {} for e in active}
    byes: dict[str, int] = {e: 0 for e in active}
    for _, match in await stage_matches(session, stage):
        ids = [s.entry_id for s in match.seats]
        if match.status == "bye":
            if ids[0] in byes:
                byes[ids[0]] += 1
            continue
        for a in ids:
            for b in ids:
                if a != b and a in met:
                    met[a][b] = met[a].get(b, 0) + 1
    if size == 2:
        pairing = pair_swiss(
            [SwissEntry(e, rows_points.get(e, 0.0), frozenset(met[e]), byes[e]) for e in order],
            avoid_rematches=bool(stage.settings.get("avoid_rematches", True)),
            pairing=str(stage.settings.get("pairing", "matching")),
        )
        tables = [[p.first, p.second] for p in pairing.pairs]
        if pairing.bye is not None:
            tables.append([pairing.bye.entry])
        explain.update(
            method=pairing.method,
            total_cost=pairing.total_cost,
            rematches=pairing.rematches,
            pairs=[
                {
                    "entries": [p.first, p.second],
                    "score_gap": p.cost.score_gap,
                    "rank_distance": p.cost.rank_distance,
                    "rematch": p.cost.rematch,
                    "cost": p.cost.total,
                }
                for p in pairing.pairs
            ],
            bye=None
            if pairing.bye is None
            else {"entry": pairing.bye.entry, "byes_before": pairing.bye.byes_before},
            notes=list(pairing.notes),
        )
        return tables
    game = await session.get(Game, event.game_key)
    assert game is not None
    seated = pair_tables(
        [TableEntry(e, rows_points.get(e, 0.0), met[e]) for e in order], size, min_seats=game.min_seats
    )
    explain.update(
        method="tables",
        total_repeat_cost=seated.total_repeat_cost,
        tables=[{"entries": t.entries, "repeat_cost": t.repeat_cost} for t in seated.tables],
    )
    return [t.entries for t in seated.tables]


def _round_robin_schedule(event: Event, stage: Stage, groups: dict[str, list[str]]) -> list[list[list[str]]]:
    """Every group's circle schedule, round k of every group played together."""
    per_group: list[list[list[list[str]]]] = []
    for name in sorted(groups):
        order = sorted(groups[name])
        rng.stream(event.seed, f"stage:{stage.index}:group:{name}:order").shuffle(order)
        rounds = round_robin(order, double=bool(stage.settings.get("double", False)))
        per_group.append([[list(p) for p in r.pairs] + ([[r.bye]] if r.bye else []) for r in rounds])
    total = max((len(g) for g in per_group), default=0)
    return [[t for g in per_group if k < len(g) for t in g[k]] for k in range(total)]


async def _match_winner(session: AsyncSession, match: Match, entries: dict[str, Entry]) -> str:
    if match.status == "bye":
        return match.seats[0].entry_id
    if match.outcome == "void":
        raise Conflict(f"match {match.id} is void: the organizer must correct it before the bracket goes on")
    firsts = [s.entry_id for s in match.seats if s.place == 1]
    pool = firsts or [s.entry_id for s in match.seats]
    return max(pool, key=lambda e: (entries[e].tiebreak_value or 0.0, e))


async def _generated_tables(
    session: AsyncSession, event: Event, stage: Stage, rounds: list[Round], explain: dict[str, Any]
) -> list[list[str]]:
    fmt = stage.format
    played = len(rounds)
    size = int(stage.settings.get("table_size", 2))
    entries = await entries_by_id(session, event.id)
    if fmt == "swiss":
        limit = core.swiss_rounds(stage.settings, len(stage.details.get("entries", [])))
        if played >= limit:
            raise Conflict(f"all {limit} rounds of this Swiss stage are paired; advance to close the stage")
        return await _swiss_tables(session, event, stage, played, explain)
    if fmt == "round_robin":
        schedule = stage.details.get("schedule")
        if schedule is None:
            raise Conflict("the schedule of this stage is still being searched; see its job")
        if size > 2:
            raise Conflict("this round robin's tables were all released at once; there is no next round")
        if played >= len(schedule):
            raise Conflict("every round of the round robin is paired; advance to close the stage")
        tables: list[list[str]] = []
        for table in schedule[played]:
            live = [e for e in table if entries[e].status == "active"]
            if live:
                tables.append(live)  # an opponent who dropped leaves a bye
        return tables
    if fmt == "single_elimination":
        if not rounds:
            raise Conflict("the bracket has no first round")
        last = [m for _, m in await stage_matches(session, stage) if m.round_id == rounds[-1].id]
        if size > 2:
            if len(last) == 1:
                raise Conflict("the final table has been played; advance to close the stage")
            results = [
                [s.entry_id for s in sorted(m.seats, key=lambda s: (s.place or 99, s.seat))] for m in last
            ]
            nxt = multi_seat_next(results, int(stage.settings.get("advance_per_table", 1)), size)
            return nxt.tables
        winners = [await _match_winner(session, m, entries) for m in sorted(last, key=lambda m: m.table)]
        if len(winners) == 1:
            raise Conflict("the bracket is decided; advance to close the stage")
        return [winners[i : i + 2] for i in range(0, len(winners), 2)]
    if fmt == "series":
        best_of = int(stage.settings.get("best_of", 3))
        wins = await _series_wins(session, stage)
        if core.series_winner(wins, best_of) or played >= best_of:
            raise Conflict("the series is decided; advance to close the stage")
        a, b = stage.details["entries"][:2]
        return [[a, b] if played % 2 == 0 else [b, a]]
    if fmt == "heats":
        raise Conflict("heats are created with explicit tables: POST {tables: [[entry_id, …], …]}")
    raise Conflict(f"a {fmt} stage is one table; it has been created")


async def _series_wins(session: AsyncSession, stage: Stage) -> dict[str, int]:
    wins = {e: 0 for e in stage.details.get("entries", [])}
    for _, m in await stage_matches(session, stage):
        if m.status == "confirmed" and m.outcome in ("played", "forfeit"):
            firsts = [s.entry_id for s in m.seats if s.place == 1]
            if len(firsts) == 1:
                wins[firsts[0]] = wins.get(firsts[0], 0) + 1
    return wins


async def pair_next_round(
    session: AsyncSession, event: Event, tables: list[list[str]] | None = None
) -> Round:
    if event.status != "running":
        raise Conflict(f"rounds are paired while the event runs; it is {event.status}")
    stage = await active_stage(session, event.id)
    if stage is None:
        raise Conflict("no stage is active")
    open_matches = [m for _, m in await stage_matches(session, stage) if m.status in OPEN]
    # Heats are open games that run side by side: a new heat may start while others are still on.
    if open_matches and not (stage.format == "heats" and tables is not None):
        raise Conflict(
            f"{len(open_matches)} match(es) of the current round are unreported or disputed; "
            "report them before pairing the next round"
        )
    rounds = await stage_rounds(session, stage)
    if tables is not None:
        checked = await _check_tables(session, event, stage, tables)
        await rules_for(event).check_tables(session, event, stage, checked)
        return await create_round(session, event, stage, checked, {"manual": True})
    custom = await rules_for(event).stage_tables(session, event, stage, rounds)
    if custom is not None:
        return await create_round(session, event, stage, custom)
    explain: dict[str, Any] = {}
    generated = await _generated_tables(session, event, stage, rounds, explain)
    return await create_round(session, event, stage, generated, {"pairing": explain} if explain else None)


# --------------------------------------------------------------------------- stages
async def activate_stage(
    session: AsyncSession, event: Event, stage: Stage, entry_ids: list[str]
) -> Round | Job | None:
    """Give the stage its entries and draws, and create what it starts with."""
    details: dict[str, Any] = {"entries": list(entry_ids)}
    settings = stage.settings
    groups = int(settings.get("groups", 1))
    entries = await entries_by_id(session, event.id)
    if groups > 1:
        split = split_groups(
            entry_ids,
            groups,
            method=str(settings.get("group_method", "random")),
            seed=event.seed,
            purpose=f"stage:{stage.index}:groups",
        )
        assigned = {e: GROUP_NAMES[g] for g, members in enumerate(split) for e in members}
        details["groups"] = assigned
        for e, name in assigned.items():
            entries[e].group = name
    stage.status = "active"
    fmt = stage.format
    size = int(settings.get("table_size", 2))
    result: Round | Job | None = None
    if fmt == "round_robin" and size == 2:
        details["schedule"] = _round_robin_schedule(event, stage, _stage_groups_from(details))
    stage.details = details
    await session.flush()
    custom = await rules_for(event).stage_tables(session, event, stage, [])
    if custom is not None:
        if custom:
            result = await create_round(session, event, stage, custom)
    elif fmt == "swiss" or (fmt == "round_robin" and size == 2):
        if entry_ids:
            explain: dict[str, Any] = {}
            tables = await _generated_tables(session, event, stage, [], explain)
            result = await create_round(
                session, event, stage, tables, {"pairing": explain} if explain else None
            )
    elif fmt == "round_robin":
        result = await create_job(
            session,
            "stage_schedule",
            {"event_id": event.id, "stage_id": stage.id},
            dedup_key=f"schedule:{stage.id}",
        )
    elif fmt == "single_elimination":
        if size > 2:
            tables = multi_seat_tables(entry_ids, size)
        else:
            bracket = single_elimination(
                entry_ids,
                method=str(settings.get("method", "draw")),  # type: ignore[arg-type]
                seed=event.seed,
                purpose=f"stage:{stage.index}:bracket",
                best_of=int(settings.get("best_of", 1)),
            )
            tables = [[e for e in (m.first, m.second) if e is not None] for m in bracket.matches[0]]
            stage.details = {**details, "bracket": {"slots": bracket.slots, "rounds": bracket.rounds}}
        result = await create_round(session, event, stage, tables)
    elif fmt == "free_for_all":
        order = sorted(entry_ids)
        stream = rng.stream(event.seed, f"stage:{stage.index}:turn_order")
        stream.shuffle(order)
        result = await create_round(session, event, stage, [order])
    elif fmt == "series":
        if len(entry_ids) != 2:
            raise Conflict(f"a series is played by 2 entries; this stage has {len(entry_ids)}")
        result = await create_round(session, event, stage, [list(entry_ids)])
    elif fmt == "playoff":
        game = await session.get(Game, event.game_key)
        assert game is not None
        if len(entry_ids) > game.max_seats:
            # More entries share first than one table of the game seats: the organizer decides how
            # the playoff is played and creates its tables (POST …/rounds {tables}).
            stage.details = {
                **stage.details,
                "note": f"{len(entry_ids)} entries tied for first; a table of {game.key} seats at most "
                f"{game.max_seats}: create the playoff's tables explicitly",
            }
        elif len(entry_ids) > 1:
            result = await create_round(session, event, stage, [list(entry_ids)])
    await session.flush()
    return result


def _stage_groups_from(details: dict[str, Any]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    assigned = details.get("groups", {})
    for e in details.get("entries", []):
        groups.setdefault(assigned.get(e, "A"), []).append(e)
    return groups


async def start_event(session: AsyncSession, event: Event) -> Round | Job | None:
    if event.status != "registration":
        raise Conflict(f"the event has already started: it is {event.status}")
    entries = sorted(
        [e for e in (await entries_by_id(session, event.id)).values() if e.status == "active"],
        key=lambda e: (e.created_at, e.id),
    )
    await rules_for(event).before_start(session, event, entries)
    if event.status == "cancelled":
        await session.flush()
        return None
    settings = event.settings
    needed = int(settings.get("min_entries", 2))
    if settings.get("sanctioned"):
        needed = max(needed, 8)
    if len(entries) < needed:
        why = " (a sanctioned event needs 8)" if settings.get("sanctioned") and needed == 8 else ""
        raise Conflict(
            f"the event needs at least {needed} active entries to start{why}; it has {len(entries)}"
        )
    values = core.draw_tiebreak_values([(e.id, e.organizer) for e in entries], event.seed)
    for e in entries:
        e.tiebreak_value = values[e.id]
    stages = [
        Stage(event_id=event.id, index=i, format=s["format"], settings=dict(s), details={}, status="pending")
        for i, s in enumerate(settings["stages"])
    ]
    session.add_all(stages)
    event.status = "running"
    await session.flush()
    return await activate_stage(session, event, stages[0], [e.id for e in entries])


async def stage_complete(session: AsyncSession, event: Event, stage: Stage) -> str | None:
    """None when the stage can close; otherwise why not."""
    matches = await stage_matches(session, stage)
    open_count = sum(1 for _, m in matches if m.status in OPEN)
    if open_count:
        return f"{open_count} match(es) are unreported or disputed"
    objection = await rules_for(event).stage_complete(session, event, stage)
    if objection is not None:
        return objection
    rounds = await stage_rounds(session, stage)
    fmt = stage.format
    size = int(stage.settings.get("table_size", 2))
    if fmt == "swiss":
        limit = core.swiss_rounds(stage.settings, len(stage.details.get("entries", [])))
        if len(rounds) < limit:
            return f"{len(rounds)} of {limit} Swiss rounds are paired"
    elif fmt == "round_robin":
        schedule = stage.details.get("schedule")
        if schedule is None:
            return "the schedule is still being searched"
        if size == 2 and len(rounds) < len(schedule):
            return f"{len(rounds)} of {len(schedule)} rounds are paired"
    elif fmt == "single_elimination":
        last = [m for r, m in matches if rounds and r.id == rounds[-1].id]
        if len([m for m in last if m.status != "bye"]) != 1 or len(last) != 1:
            return "the bracket is not decided yet"
    elif fmt == "series":
        wins = await _series_wins(session, stage)
        best_of = int(stage.settings.get("best_of", 3))
        if core.series_winner(wins, best_of) is None and len(rounds) < best_of:
            return "the series is not decided yet"
    elif fmt in ("free_for_all", "playoff"):
        if not rounds and len(stage.details.get("entries", [])) > 1:
            return "the stage's table has not been created"
    return None


async def advance(session: AsyncSession, event: Event) -> tuple[Stage | None, Round | Job | None]:
    """Close the active stage; open the next with the entries its rule takes, or finish the event."""
    if event.status != "running":
        raise Conflict(f"only a running event advances; it is {event.status}")
    stage = await active_stage(session, event.id)
    if stage is None:
        raise Conflict("no stage is active")
    why = await stage_complete(session, event, stage)
    if why is not None:
        raise Conflict(f"the stage cannot close yet: {why}")
    stages = await stages_of(session, event.id)
    while True:
        rows = await stage_standings(session, event, stage)
        stage.status = "closed"
        nxt = next((s for s in stages if s.index == stage.index + 1), None)
        if nxt is None:
            event.status = "finished"
            await session.flush()
            return None, None
        entries = await entries_by_id(session, event.id)
        ranked = [
            core.RankedEntry(
                r.entry_id,
                r.rank,
                stage.details.get("groups", {}).get(r.entry_id),
                entries[r.entry_id].tiebreak_value,
            )
            for r in rows
            if entries[r.entry_id].status == "active"
        ]
        custom = await rules_for(event).advancing(session, event, stage, rows, nxt)
        if custom is not None:
            chosen = custom
        elif nxt.format == "playoff":
            chosen = core.tied_for_first(ranked)
        else:
            chosen = core.select_advancing(ranked, nxt.settings.get("advance"))
        result = await activate_stage(session, event, nxt, chosen)
        if nxt.format == "playoff" and len(chosen) <= 1:
            stage = nxt  # no tie for first: the playoff is not needed
            continue
        return nxt, result
