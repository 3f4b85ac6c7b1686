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

from sqlalchemy.ext.asyncio import AsyncSession

from app.core import lifecycle as core
from app.core.errors import Conflict
from app.core.pairing.groups import split_groups
from app.core.stage_details import parse_details
from app.core.vocabulary import OPEN_MATCH, EntryStatus, EventStatus, StageStatus
from app.db.models import Event, Job, Round, Stage
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
from app.services.rounds import RoundView, check_tables, create_round, round_view

GROUP_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


async def pair_next_round(
    session: AsyncSession, event: Event, tables: list[list[str]] | None = None
) -> Round:
    """The next round of the active stage: the organizer's ``tables``, the preset's, or the format's."""
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"rounds are paired while the event runs; it is {event.status}")
    stage = await active_stage(session, event.id)
    if stage is None:
        raise Conflict("no stage is active")
    registry = registry_of(session)
    fmt = registry.format_of(stage)
    rules = registry.rules_for(event)
    open_matches = [m for _, m in await stage_matches(session, stage) if m.status in OPEN_MATCH]
    if open_matches and not (fmt.concurrent_tables and tables is not None):
        raise Conflict(
            f"{len(open_matches)} match(es) of the current round are unreported or disputed; "
            "report them before pairing the next round"
        )
    rounds = await stage_rounds(session, stage)
    if tables is not None:
        duel = fmt.sized_tables and stage_settings(stage).table_size == 2
        checked = await check_tables(session, event, stage, tables, duel=duel)
        await rules.check_tables(session, event, stage, checked)
        return await create_round(session, event, stage, checked, {"manual": True})
    custom = await rules.stage_tables(session, event, stage, rounds)
    if custom is not None:
        return await create_round(session, event, stage, custom)
    explain: dict[str, Any] = {}
    generated = await fmt.next_tables(session, event, stage, rounds, explain)
    return await create_round(session, event, stage, generated, {"pairing": explain} if explain else None)


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


async def start_event(session: AsyncSession, event: Event) -> Round | Job | None:
    if event.status != EventStatus.REGISTRATION:
        raise Conflict(f"the event has already started: it is {event.status}")
    entries = sorted(
        [e for e in (await entries_by_id(session, event.id)).values() if e.status == EntryStatus.ACTIVE],
        key=lambda e: (e.created_at, e.id),
    )
    await registry_of(session).rules_for(event).before_start(session, event, entries)
    if event.status == EventStatus.CANCELLED:
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
    for e in entries:
        e.tiebreak_value = values[e.id]
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
    return await activate_stage(session, event, stages[0], [e.id for e in entries])


async def stage_complete(session: AsyncSession, event: Event, stage: Stage) -> str | None:
    """None when the stage can close; otherwise why not."""
    matches = await stage_matches(session, stage)
    open_count = sum(1 for _, m in matches if m.status in OPEN_MATCH)
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
    why = await stage_complete(session, event, stage)
    if why is not None:
        raise Conflict(f"the stage cannot close yet: {why}")
    registry = registry_of(session)
    stages = await stages_of(session, event.id)
    while True:
        rows = await stage_standings(session, event, stage)
        stage.status = StageStatus.CLOSED
        nxt = next((s for s in stages if s.index == stage.index + 1), None)
        if nxt is None:
            event.status = EventStatus.FINISHED
            await session.flush()
            return None, None
        entries = await entries_by_id(session, event.id)
        groups = details_of(stage).groups
        ranked = [
            core.RankedEntry(r.entry_id, r.rank, groups.get(r.entry_id), entries[r.entry_id].tiebreak_value)
            for r in rows
            if entries[r.entry_id].status == EntryStatus.ACTIVE
        ]
        fmt = registry.format_of(nxt)
        custom = await registry.rules_for(event).advancing(session, event, stage, rows, nxt)
        chosen = custom if custom is not None else fmt.entrants(ranked, stage_settings(nxt))
        result = await activate_stage(session, event, nxt, chosen)
        if not fmt.needed(chosen):
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
    )


async def start(session: AsyncSession, event_id: str) -> Progress:
    """Start the event: tie-break values, groups, and the first stage's round or schedule job."""
    event = await lock_event(session, event_id)
    created = await start_event(session, event)
    return await _progress(session, event, await active_stage(session, event_id), created)


async def pair(session: AsyncSession, event_id: str, tables: list[list[str]] | None) -> RoundView:
    """Pair the next round of the active stage (or create exactly ``tables``)."""
    event = await lock_event(session, event_id)
    return await round_view(session, await pair_next_round(session, event, tables))


async def close_stage(session: AsyncSession, event_id: str) -> Progress:
    """Close the active stage and open the next (or finish the event)."""
    event = await lock_event(session, event_id)
    stage, created = await advance(session, event)
    return await _progress(session, event, stage, created)
