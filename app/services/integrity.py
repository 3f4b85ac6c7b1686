"""The event integrity check: a read-only audit of an event's stored data, run as a job.

It re-derives what must hold for any event whatever its format: the published seed
commitment matches the seed; every seat belongs to an entry of the event; no entry sits
twice in one round; table sizes are within the game's limits (a bye has one seat);
reported matches carry a place for every seat; drawn tie-break values are distinct;
rounds of a stage are numbered 1, 2, 3, … without gaps.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload
from typing_extensions import TypedDict

from app.core.errors import NotFound
from app.core.rng import commitment
from app.core.vocabulary import MatchStatus, Outcome
from app.db.models import Entry, Event, Game, Match, Round
from app.jobs import JobContext


class IntegrityProblem(TypedDict):
    where: str
    msg: str


class IntegrityCounts(TypedDict):
    entries: int
    rounds: int
    matches: int


class IntegrityResult(TypedDict):
    """The ``integrity_check`` job's answer."""

    event_id: str
    ok: bool
    checked: IntegrityCounts
    problems: list[IntegrityProblem]


async def check_event(session: AsyncSession, event_id: str, ctx: JobContext | None = None) -> IntegrityResult:
    event = await session.get(Event, event_id)
    if event is None:
        raise NotFound(f"event {event_id} not found")
    game = await session.get(Game, event.game_key)
    problems: list[IntegrityProblem] = []

    if commitment(event.seed) != event.seed_commitment:
        problems.append({"where": "event", "msg": "seed does not match the published seed_commitment"})

    entries = (await session.execute(select(Entry).where(Entry.event_id == event_id))).scalars().all()
    entry_ids = {e.id for e in entries}
    values = [e.tiebreak_value for e in entries if e.tiebreak_value is not None]
    if len(values) != len(set(values)):
        problems.append({"where": "entries", "msg": "tie-break values are not distinct"})

    rounds = (await session.execute(select(Round).where(Round.event_id == event_id))).scalars().all()
    by_stage: dict[str, list[int]] = defaultdict(list)
    for r in rounds:
        by_stage[r.stage_id].append(r.number)
    for stage_id, numbers in by_stage.items():
        if sorted(numbers) != list(range(1, len(numbers) + 1)):
            problems.append(
                {"where": f"stage {stage_id}", "msg": f"round numbers {sorted(numbers)} have gaps"}
            )

    matches = (
        (
            await session.execute(
                select(Match).where(Match.event_id == event_id).options(selectinload(Match.seats))
            )
        )
        .scalars()
        .all()
    )
    seated: dict[str, Counter[str]] = defaultdict(Counter)
    total = max(len(matches), 1)
    for i, m in enumerate(sorted(matches, key=lambda m: (m.round_id, m.table))):
        where = f"match {m.id}"
        for seat in m.seats:
            seated[m.round_id][seat.entry_id] += 1
            if seat.entry_id not in entry_ids:
                problems.append({"where": where, "msg": f"seat {seat.seat} holds an entry of another event"})
        n = len(m.seats)
        if m.status == Outcome.BYE:
            if n != 1:
                problems.append({"where": where, "msg": f"a bye has {n} seats"})
        elif game is not None and not game.min_seats <= n <= game.max_seats:
            problems.append(
                {
                    "where": where,
                    "msg": f"{n} seats, outside {game.min_seats}–{game.max_seats} for {game.key}",
                }
            )
        if (
            m.status == MatchStatus.CONFIRMED
            and m.outcome not in (Outcome.VOID, Outcome.FORFEIT)
            and any(s.place is None for s in m.seats)
        ):
            problems.append({"where": where, "msg": "confirmed without a place for every seat"})
        if ctx is not None:
            await ctx.progress((i + 1) / total)
    for round_id, counts in seated.items():
        for entry_id, c in counts.items():
            if c > 1:
                problems.append({"where": f"round {round_id}", "msg": f"entry {entry_id} seated {c} times"})

    return {
        "event_id": event_id,
        "ok": not problems,
        "checked": {"entries": len(entries), "rounds": len(rounds), "matches": len(matches)},
        "problems": problems,
    }


async def integrity_job(session: AsyncSession, ctx: JobContext) -> IntegrityResult:
    return await check_event(session, ctx.args["event_id"], ctx)
