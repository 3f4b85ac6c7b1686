"""Running an event: start, pair the next round, advance a stage (api.md "Resources"; formats.md
"Words" — Stage).

The lifecycle is the same for every format; what differs — how a stage starts, what its next round
is, when it is complete, who enters it — is the stage format's (``app/services/formats/``), and what a
seed's event changes beyond that is its preset's rules (``app/services/rules.py``). Both come from
the registry the session carries. Every change happens with the event row locked
(``reads.lock_event``), so two concurrent "pair next round" calls produce one round.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app.core import lifecycle as core
from app.core.access import Principal
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.pairing.groups import split_groups
from app.core.stage_details import parse_details
from app.core.vocabulary import OPEN_MATCH, EntryStatus, EventStatus, MatchStatus, Outcome, StageStatus
from app.db.base import utcnow
from app.db.models import Entry, Event, Job, Match, Round, Seat, Stage
from app.services import outbox, results, summary
from app.services.downstream import entrants
from app.services.history import record
from app.services.reads import (
    active_stage,
    count_entries,
    details_of,
    entries_by_id,
    lock_event,
    set_details,
    settings_of,
    stage_matches,
    stage_rounds,
    stage_settings,
    stage_standings,
    stages_of,
)
from app.services.registry import registry_of
from app.services.rounds import (
    RoundView,
    check_tables,
    create_round,
    numbered_round,
    round_matches,
    round_view,
    write_drawn,
    write_round,
)

GROUP_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


async def _open_matches(session: AsyncSession, stage: Stage) -> int:
    """How many matches of the stage are unreported or disputed (counted, not loaded)."""
    await session.flush()
    stmt = (
        select(func.count())
        .select_from(Match)
        .join(Round, Round.id == Match.round_id)
        .where(Round.stage_id == stage.id, Match.status.in_(tuple(OPEN_MATCH)))
    )
    return int((await session.execute(stmt)).scalar_one())


async def pair_next_round(
    session: AsyncSession, event: Event, tables: list[list[str]] | None = None
) -> RoundView:
    """The next round of the active stage — the organizer's ``tables``, the preset's, or the
    format's — as clients read it, from the matches it wrote."""
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"rounds are paired while the event runs; it is {event.status}")
    stage = await active_stage(session, event.id)
    if stage is None:
        raise Conflict("no stage is active")
    registry = registry_of(session)
    fmt = registry.format_of(stage)
    rules = registry.rules_for(event)
    if tables is None and (why := fmt.nothing_to_pair(stage)) is not None:
        raise Conflict(why)
    open_matches = await _open_matches(session, stage)
    if open_matches and not (fmt.concurrent_tables and tables is not None):
        raise Conflict(
            f"{open_matches} match(es) of the current round are unreported or disputed; "
            "report them before pairing the next round"
        )
    rounds = await stage_rounds(session, stage)
    if tables is not None:
        duel = fmt.sized_tables and stage_settings(stage).table_size == 2
        checked = await check_tables(session, event, stage, tables, duel=duel)
        await rules.check_tables(session, event, stage, checked)
        return await round_view(session, *await write_round(session, event, stage, checked, {"manual": True}))
    custom = await rules.stage_tables(session, event, stage, rounds)
    if custom is not None:
        return await round_view(session, *await write_round(session, event, stage, custom))
    rnd, released = await write_drawn(
        session, event, stage, await fmt.next_tables(session, event, stage, rounds)
    )
    await results.resign_games(session, event, stage, released, results.organizer_of(event).actor)
    return await round_view(session, rnd, released)


async def activate_stage(
    session: AsyncSession, event: Event, stage: Stage, entry_ids: list[str]
) -> Round | Job | None:
    """Give the stage its entries and draws, and create what it starts with."""
    registry = registry_of(session)
    fmt = registry.format_of(stage)
    settings = stage_settings(stage)
    details = replace(parse_details(stage.format, {}), entries=tuple(entry_ids))
    if settings.groups > 1:
        split = split_groups(
            entry_ids,
            settings.groups,
            method=settings.group_method,
            seed=event.seed,
            purpose=f"stage:{stage.index}:groups",
        )
        assigned = {e: GROUP_NAMES[g] for g, members in enumerate(split) for e in members}
        details = replace(details, groups=assigned)
        entries = await entries_by_id(session, event.id)
        for e, name in assigned.items():
            entries[e].group = name
    stage.status = StageStatus.ACTIVE
    set_details(stage, fmt.prepare(event, stage, settings, details))
    await session.flush()
    custom = await registry.rules_for(event).stage_tables(session, event, stage, [])
    result: Round | Job | None
    if custom is not None:
        result = await create_round(session, event, stage, custom) if custom else None
    else:
        result = await fmt.start(session, event, stage)
    await session.flush()
    return result


def seed_order(entries: list[Entry]) -> list[Entry]:
    """The order a first stage seeds its entries in: the given ``seed`` numbers first (1 is the top),
    then by starting rating (highest first), then in registration order."""
    return sorted(
        entries,
        key=lambda e: (
            e.seed is None,
            e.seed or 0,
            e.rating_at_entry is None,
            -(e.rating_at_entry or 0.0),
            e.created_at,
            e.id,
        ),
    )


# each entry's drawn value: one statement run for many rows, the loaded entries told what was written
_ENTRIES: Any = Entry.__table__
_SET_TIEBREAK = (
    update(_ENTRIES).where(_ENTRIES.c.id == bindparam("entry")).values(tiebreak_value=bindparam("value"))
)


async def _write_tiebreak_values(
    session: AsyncSession, entries: list[Entry], values: dict[str, float]
) -> None:
    """The entries' tie-break values written set-based (not an update flushed per entry: 10,000 of
    them took most of a start's CPU) and set on the loaded entries as their committed values."""
    if not entries:
        return
    await session.execute(_SET_TIEBREAK, [{"entry": e.id, "value": values[e.id]} for e in entries])
    for e in entries:
        set_committed_value(e, "tiebreak_value", values[e.id])


async def start_event(
    session: AsyncSession, event: Event, principal: Principal | None = None, not_checked_in: str = "drop"
) -> Round | Job | None:
    if event.status != EventStatus.REGISTRATION:
        raise Conflict(f"the event has already started: it is {event.status}")
    entries = seed_order(
        [e for e in (await entries_by_id(session, event.id)).values() if e.status == EntryStatus.ACTIVE]
    )
    if settings_of(event).check_in:
        absent = [e for e in entries if e.checked_in_at is None]
        if absent and not_checked_in == "refuse":
            names = ", ".join(e.name for e in absent[:10]) + (" …" if len(absent) > 10 else "")
            raise Conflict(f"{len(absent)} entries have not checked in: {names}")
        now = utcnow()
        for e in absent:
            e.status = EntryStatus.DROPPED
            e.dropped_at = now
        if absent:
            record(
                session,
                event.id,
                "check_in_drop",
                principal,
                {"entries": [e.id for e in absent], "names": [e.name for e in absent]},
            )
        entries = [e for e in entries if e.checked_in_at is not None]
    await registry_of(session).rules_for(event).before_start(session, event, entries)
    if event.status == EventStatus.CANCELLED:
        await outbox.cancelled(session, event)  # the preset called it off (too few players)
        await session.flush()
        return None
    settings = settings_of(event)  # after the preset's hook: it may fill in the stages
    needed = settings.entries_needed
    if len(entries) < needed:
        why = " (a sanctioned event needs 8)" if settings.sanctioned and needed == 8 else ""
        raise Conflict(
            f"the event needs at least {needed} active entries to start{why}; it has {len(entries)}"
        )
    values = core.draw_tiebreak_values([(e.id, e.organizer) for e in entries], event.seed)
    await _write_tiebreak_values(session, entries, values)
    stages = [
        Stage(
            event_id=event.id,
            index=i,
            format=s["format"],
            settings=dict(s),
            details={},
            status=StageStatus.PENDING,
        )
        for i, s in enumerate(event.settings["stages"])
    ]
    session.add_all(stages)
    event.status = EventStatus.RUNNING
    await session.flush()
    await outbox.started(session, event)
    return await activate_stage(session, event, stages[0], [e.id for e in entries])


async def stage_complete(
    session: AsyncSession, event: Event, stage: Stage, ignore: list[Match] | None = None
) -> str | None:
    """None when the stage can close (``ignore``: open matches that do not count); otherwise why not."""
    matches = await stage_matches(session, stage)
    skip = {m.id for m in ignore or []}
    open_count = sum(1 for _, m in matches if m.status in OPEN_MATCH and m.id not in skip)
    if open_count:
        return f"{open_count} match(es) are unreported or disputed"
    registry = registry_of(session)
    objection = await registry.rules_for(event).stage_complete(session, event, stage)
    if objection is not None:
        return objection
    rounds = await stage_rounds(session, stage)
    return await registry.format_of(stage).incomplete(session, event, stage, rounds, matches)


async def advance(session: AsyncSession, event: Event) -> tuple[Stage | None, Round | Job | None]:
    """Close the active stage; open the next with the entries it takes, or finish the event."""
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"only a running event advances; it is {event.status}")
    stage = await active_stage(session, event.id)
    if stage is None:
        raise Conflict("no stage is active")
    registry = registry_of(session)
    moot = await registry.format_of(stage).moot(session, event, stage)
    if moot and await stage_complete(session, event, stage, ignore=moot) is None:
        for m in moot:  # e.g. the games still out of a decided series
            void = {"outcome": Outcome.VOID, "seats": [{"entry_id": s.entry_id} for s in m.seats]}
            await results.rule(
                session, event, stage, m, void, "not needed", results.organizer_of(event).actor
            )
    why = await stage_complete(session, event, stage)
    if why is not None:
        raise Conflict(f"the stage cannot close yet: {why}")
    stages = await stages_of(session, event.id)
    while True:
        rows = await stage_standings(session, event, stage)
        stage.status = StageStatus.CLOSED
        outbox.stage_closed(session, event, stage)
        nxt = next((s for s in stages if s.index == stage.index + 1), None)
        if nxt is None:
            event.status = EventStatus.FINISHED
            await session.flush()
            return None, None
        fmt = registry.format_of(nxt)
        chosen = await entrants(session, event, stage, rows, nxt)
        result = await activate_stage(session, event, nxt, chosen)
        if not fmt.needed(chosen) or not await registry.rules_for(event).stage_needed(
            session, event, nxt, chosen
        ):
            stage = nxt  # e.g. no tie for first: the playoff is not needed
            continue
        return nxt, result


# --------------------------------------------------------------------------- use cases
@dataclass(frozen=True)
class Progress:
    """Where an event stands after it starts or advances: its stage and what that stage created."""

    event: Event
    entries: int
    stage: Stage | None
    round: RoundView | None = None
    job: Job | None = None
    summary: summary.Summary = summary.Summary()

    @property
    def note(self) -> str | None:
        return details_of(self.stage).note if self.stage is not None else None


async def _progress(
    session: AsyncSession, event: Event, stage: Stage | None, created: Round | Job | None
) -> Progress:
    return Progress(
        event,
        await count_entries(session, event.id),
        stage,
        round=await round_view(session, created) if isinstance(created, Round) else None,
        job=created if isinstance(created, Job) else None,
        summary=await summary.summarize(session, event),
    )


async def start(
    session: AsyncSession, event_id: str, principal: Principal | None = None, not_checked_in: str = "drop"
) -> Progress:
    """Start the event: tie-break values, groups, and the first stage's round or schedule job. With
    check-in, entries not checked in are dropped (or, ``not_checked_in="refuse"``, the start is a 409)."""
    event = await lock_event(session, event_id)
    created = await start_event(session, event, principal, not_checked_in)
    return await _progress(session, event, await active_stage(session, event_id), created)


async def pair(session: AsyncSession, event_id: str, tables: list[list[str]] | None) -> RoundView:
    """Pair the next round of the active stage (or create exactly ``tables``)."""
    event = await lock_event(session, event_id)
    return await pair_next_round(session, event, tables)


async def close_stage(session: AsyncSession, event_id: str) -> Progress:
    """Close the active stage and open the next (or finish the event)."""
    event = await lock_event(session, event_id)
    stage, created = await advance(session, event)
    await summary.advanced(session, event)
    return await _progress(session, event, stage, created)


# --------------------------------------------------------------------------- undo and swap
def _unreported(matches: list[Match]) -> list[Match]:
    """The matches that already carry a claim or a result (a bye is part of the pairing)."""
    return [m for m in matches if m.status not in (MatchStatus.PENDING, MatchStatus.BYE)]


async def undo_round(
    session: AsyncSession, event_id: str, number: int, principal: Principal
) -> dict[str, Any]:
    """Delete the event's last round while none of its matches is reported, so that it can be paired
    again (after a no-show is dropped, say). A reported match is a 409 naming it. Audited."""
    event = await lock_event(session, event_id)
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"rounds are undone while the event runs; it is {event.status}")
    rnd = await numbered_round(session, event.id, number)
    last = (
        await session.execute(select(func.max(Round.number)).where(Round.event_id == event.id))
    ).scalar_one()
    if number != last:
        raise Conflict(f"only the last round ({last}) can be undone")
    stage = await active_stage(session, event.id)
    if stage is None or stage.id != rnd.stage_id:
        raise Conflict(f"round {number} belongs to a closed stage")
    matches = await round_matches(session, rnd)
    reported = _unreported(matches)
    if reported:
        names = "; ".join(f"table {m.table} (match {m.id}) is {m.status}" for m in reported)
        raise Conflict(f"round {number} cannot be undone: {names}")
    rounds = await stage_rounds(session, stage)
    why = registry_of(session).format_of(stage).cannot_undo(stage, rounds)
    if why is not None:
        raise Conflict(f"round {number} cannot be undone: {why}")
    tables = [[s.entry_id for s in sorted(m.seats, key=lambda s: s.seat)] for m in matches]
    ids = [m.id for m in matches]
    await session.execute(delete(Seat).where(Seat.match_id.in_(ids)))
    await session.execute(delete(Match).where(Match.id.in_(ids)))
    await session.execute(delete(Round).where(Round.id == rnd.id))
    record(
        session, event.id, "undo_round", principal, {"round": number, "stage": stage.index, "tables": tables}
    )
    await session.flush()
    await outbox.round_undone(session, event.id, {"round": number, "stage": stage.index})
    return {"round": number, "stage": stage.index, "tables": tables}


async def swap_entries(
    session: AsyncSession, event_id: str, number: int, a: str, b: str, principal: Principal
) -> RoundView:
    """Swap two entries of round ``number`` between their tables (or their seats at one table), both
    tables unreported. Audited, and noted in the round's details."""
    event = await lock_event(session, event_id)
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"the event is {event.status}")
    rnd = await numbered_round(session, event.id, number)
    if a == b:
        raise InvalidInput(
            "swap two different entries", [Problem(("entries",), "the two entries are the same")]
        )
    matches = await round_matches(session, rnd)
    seat_of = {s.entry_id: (m, s) for m in matches for s in m.seats}
    problems = [
        Problem(("entries", i), f"entry {e} does not play in round {number}")
        for i, e in enumerate((a, b))
        if e not in seat_of
    ]
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    (ma, sa), (mb, sb) = seat_of[a], seat_of[b]
    reported = _unreported([ma] if ma is mb else [ma, mb])
    if reported:
        names = "; ".join(f"table {m.table} (match {m.id}) is {m.status}" for m in reported)
        raise Conflict(f"only unreported tables can be swapped: {names}")
    if ma is mb:
        # one table: the two seats change hands; the first token stays with its seat
        pos_a, pos_b = sa.seat, sb.seat
        tok_a, tok_b = sa.first_token, sb.first_token
        sa.seat = -1
        await session.flush()
        sb.seat, sb.first_token = pos_a, tok_a
        await session.flush()
        sa.seat, sa.first_token = pos_b, tok_b
    else:
        sa.entry_id, sb.entry_id = b, a
    for m in {ma.id: ma, mb.id: mb}.values():
        results.seats_moved(m)
    detail = {"round": number, "entries": [a, b], "tables": [ma.table, mb.table]}
    rnd.details = {**(rnd.details or {}), "swaps": [*(rnd.details or {}).get("swaps", []), detail]}
    record(session, event.id, "swap", principal, detail)
    await outbox.round_swapped(session, event.id, detail)
    await session.flush()
    return await round_view(session, rnd)
