"""What the stages after a closed stage built on it (formats.md "Advancing from one stage to the
next"; "Reporting and confirming" — corrections).

A stage's standings seed the stage after it. ``entrants`` is the one place that says which entries
the next stage takes (the preset's rule, else the stage's ``advance`` rule); ``lifecycle.advance``
uses it when a stage closes. A correction of a closed stage cannot reseed what was built on it —
those tables may already be played — so ``stale_warnings`` says instead what the correction changed:
the closed stage's standings, and the seeding the next stage would now take.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.lifecycle import RankedEntry
from app.core.standings import StandingRow
from app.core.vocabulary import EntryStatus, StageStatus
from app.db.models import Event, Stage
from app.services.reads import (
    details_of,
    entries_by_id,
    entry_names,
    stage_settings,
    stage_standings,
    stages_of,
)
from app.services.registry import registry_of


async def entrants(
    session: AsyncSession,
    event: Event,
    closed: Stage,
    rows: list[StandingRow],
    nxt: Stage,
    *,
    record: bool = True,
) -> list[str]:
    """The entries ``nxt`` takes from the closed stage's standings ``rows``, in seed order
    (``record=False``: what it would take, writing nothing)."""
    registry = registry_of(session)
    rules = registry.rules_for(event)
    custom = await (
        rules.advancing(session, event, closed, rows, nxt)
        if record
        else rules.advancing(session, event, closed, rows, nxt, record=False)
    )
    if custom is not None:
        return custom
    entries = await entries_by_id(session, event.id)
    groups = details_of(closed).groups
    ranked = [
        RankedEntry(r.entry_id, r.rank, groups.get(r.entry_id), entries[r.entry_id].tiebreak_value)
        for r in rows
        if entries[r.entry_id].status == EntryStatus.ACTIVE
    ]
    return registry.format_of(nxt).entrants(ranked, stage_settings(nxt))


@dataclass(frozen=True)
class Built:
    """A closed stage as the stages after it see it: every entry's rank, and the seeding the next
    stage (when it has opened) would take from it."""

    ranks: dict[str, int]
    next_stage: Stage | None
    would_take: tuple[str, ...]


async def built_on(session: AsyncSession, event: Event, stage: Stage) -> Built | None:
    """None while the stage is open: nothing is built on it yet."""
    if stage.status != StageStatus.CLOSED:
        return None
    rows = await stage_standings(session, event, stage)
    nxt = next(
        (s for s in await stages_of(session, event.id) if s.index == stage.index + 1),
        None,
    )
    if nxt is None or nxt.status == StageStatus.PENDING:
        return Built({r.entry_id: r.rank for r in rows}, None, ())
    took = await entrants(session, event, stage, rows, nxt, record=False)
    return Built({r.entry_id: r.rank for r in rows}, nxt, tuple(took))


def _label(stage: Stage) -> str:
    name = stage_settings(stage).name
    return f"stage {stage.index} ({name})" if name else f"stage {stage.index} ({stage.format})"


def _listed(ids: list[str], names: dict[str, str], limit: int = 8) -> str:
    shown = [names.get(e, e) for e in ids[:limit]]
    return ", ".join(shown) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


async def stale_warnings(
    session: AsyncSession, event: Event, stage: Stage, before: Built | None
) -> list[str]:
    """What a correction of the closed ``stage`` made stale, compared with ``before`` it."""
    if before is None:
        return []
    after = await built_on(session, event, stage)
    assert after is not None
    names = await entry_names(session, event.id)
    out: list[str] = []
    moved = [e for e in after.ranks if after.ranks[e] != before.ranks.get(e)]
    if moved:
        changes = "; ".join(f"{names.get(e, e)} {before.ranks.get(e)} → {after.ranks[e]}" for e in moved[:8])
        more = f" and {len(moved) - 8} more" if len(moved) > 8 else ""
        out.append(
            f"{_label(stage)} closed before this correction; its standings changed (rank before → now): "
            f"{changes}{more}"
        )
    nxt = after.next_stage
    if nxt is not None and after.would_take != before.would_take:
        took = list(details_of(nxt).entries)
        came_in = [e for e in after.would_take if e not in took]
        left = [e for e in took if e not in after.would_take]
        if came_in or left:
            out.append(
                f"{_label(nxt)} took its entries from these standings and would now differ: "
                f"{_listed(came_in, names) or 'nobody'} would now be in, "
                f"{_listed(left, names) or 'nobody'} out; its tables stand as they were drawn"
            )
        else:
            out.append(
                f"{_label(nxt)} took its entries from these standings; its seeding would now be "
                f"{_listed(list(after.would_take), names, 25)}; its tables stand as they were drawn"
            )
    return out
