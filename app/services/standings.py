"""Which standings a client means, and computing them (api.md ``GET /v1/events/{id}/standings``).

Ruling: without ``stage``, the standings are the active stage's; once the event is over, the last
stage that was played (a playoff skipped for want of a tie holds no games and is passed over): the
stage ``current_stage`` names (app/services/summary.py). They are ``final`` once their stage has
closed or the event has ended (finished or cancelled); provisional before.

The standings cache (docs/architecture.md "The standings cache"): ``GET …/standings`` is served by
``cached_standings``, which keeps the last ``CACHED`` answers of this process keyed by (event, its
``standings_mark``, stage, group) (``app/services/marked.py``: why it cannot be stale). Beneath
it, ``ledger_standings`` keeps the last ``LEDGERS`` aggregations of this process
(``core.standings.StandingsLedger``), keyed by (event, stage, group): when the mark has moved, the
standings are read from the database as always, and the kept ledger folds in just the games that
differ from what it holds — a result, a correction, a round's byes — instead of scoring every game
again. Anything else that differs (the entries, the settings, the seed) makes it compute afresh.
The ledger is a cache of a pure function of what was read, so whatever read updated it last, every
answer equals a clean recompute of what its own request read.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import NotFound
from app.core.lifecycle import standings_final
from app.core.scoring import GameResult
from app.core.standings import StandingRow, StandingsLedger, compute_standings
from app.db.models import Event, Round, Stage
from app.services.marked import MarkedCache
from app.services.reads import (
    FinalMatch,
    details_of,
    entry_rows,
    final_game,
    final_matches,
    final_versions,
    get_event,
    stage_config,
    stages_of,
    standings_entries,
    tiebreak_source,
)
from app.services.summary import deciding

CACHED = 32  # answers kept per process (the least recently served go first) ...
CACHED_ROWS = 40_000  # ... and rows in all of them (about 1 KB each, with its rendering)
LEDGERS = 8  # aggregations kept per process (the least recently used go first) ...
LEDGER_GAMES = 40_000  # ... and games in all of them (about 2 KB each, with the matches read)


@dataclass(frozen=True, eq=False)
class StandingsView:
    """The answer, holding no database rows (it outlives its session in the cache); compared and
    hashed by identity (the API keeps each one's rendering beside it)."""

    stage: int | None  # the stage's index
    group: str | None
    rows: tuple[StandingRow, ...]
    groups: dict[str, str]  # entry → group, when the stage is split
    tiebreaks: tuple[str, ...] = ()  # the chain applied
    tiebreaks_from: str = "settings"  # or default:<format>
    final: bool = False  # the stage closed (or the event ended): no more play changes them


async def chosen_stage(session: AsyncSession, event_id: str, index: int | None) -> Stage | None:
    stages = await stages_of(session, event_id)
    if index is not None:
        chosen = next((s for s in stages if s.index == index), None)
        if chosen is None:
            raise NotFound(f"stage {index} of event {event_id} not found (it may not have started)")
        return chosen
    if not stages:
        return None
    played = set((await session.execute(select(Round.stage_id).where(Round.event_id == event_id))).scalars())
    return deciding(stages, played)


async def event_standings(
    session: AsyncSession, event_id: str, stage_index: int | None = None, group: str | None = None
) -> StandingsView:
    event = await get_event(session, event_id)
    stage = await chosen_stage(session, event_id, stage_index)
    rows = await ledger_standings(session, event, stage, group)
    groups = dict(details_of(stage).groups) if stage is not None else {}
    chain = stage_config(session, event, stage).tiebreaks
    final = stage is not None and standings_final(stage.status, event.status)
    index = stage.index if stage is not None else None
    return StandingsView(index, group, tuple(rows), groups, chain, tiebreak_source(event, stage), final)


@dataclass(eq=False)
class _Kept:
    """A stage's kept ledger, the final matches it holds, and the stage's final matches as they
    were last read (``reads.final_matches``) with their versions: the next read reads again only
    the matches whose version has moved, and is compared with them, match by match."""

    ledger: StandingsLedger
    matches: dict[str, FinalMatch]
    read: dict[str, FinalMatch]
    versions: dict[str, int]


async def _final_read(
    session: AsyncSession, stage: Stage | None, kept: _Kept | None
) -> tuple[dict[str, FinalMatch], dict[str, int]]:
    """The stage's final matches and their versions as ``reads.final_matches`` reads them all,
    in its order: with a kept read, only the matches whose version differs from it are read
    again (a result, a correction, a round's byes: a few rows, where the whole stage is thousands),
    the rest taken as kept."""
    if stage is None:
        return {}, {}
    if kept is None:
        return await final_matches(session, stage)
    # the kept read as it is now: another request may keep a newer one while this one reads
    before, before_versions = kept.read, kept.versions
    now = await final_versions(session, stage)
    stale = [mid for mid, version in now.items() if before_versions.get(mid) != version]
    fresh, fresh_versions = await final_matches(session, stage, stale) if stale else ({}, {})
    read: dict[str, FinalMatch] = {}
    versions: dict[str, int] = {}
    for mid, version in now.items():
        if mid in fresh:
            read[mid], versions[mid] = fresh[mid], fresh_versions[mid]
        elif before_versions.get(mid) == version:
            versions[mid] = version
            if mid in before:  # else final without an outcome at this version: not a game
                read[mid] = before[mid]
        # else: no longer final when read again
    return read, versions


_ledgers: OrderedDict[tuple[str, str | None, str | None], _Kept] = OrderedDict()


async def ledger_standings(
    session: AsyncSession, event: Event, stage: Stage | None, group: str | None = None
) -> list[StandingRow]:
    """The stage's standings as ``reads.stage_standings`` computes them, through this process's
    kept ledger of the stage: only the matches that differ from the last read are made games of,
    scored and folded in; a clean computation when nothing is kept or more than games changed."""
    entries = standings_entries(await entry_rows(session, event.id), stage, group)
    wanted = {e.entry_id for e in entries}
    key = (event.id, stage.id if stage is not None else None, group)
    read, versions = await _final_read(session, stage, _ledgers.get(key))
    config = stage_config(session, event, stage)
    # no await from here on: the ledger is read and brought up to date in one step of the loop
    kept = _ledgers.pop(key, None)
    if kept is not None:
        # a match read as before is one the ledger holds (among the same entries, or ``apply``
        # refuses); any other is made a game of, if it seats only the entries ranked
        before = kept.matches
        matches: dict[str, FinalMatch] = {}
        changed: list[GameResult] = []
        for mid, m in read.items():
            if before.get(mid) == m:
                matches[mid] = m
            elif all(seat[0] in wanted for seat in m[3]) and (g := final_game(mid, m)) is not None:
                matches[mid] = m
                changed.append(g)
        same = len(matches) - len(changed)
        gone = [mid for mid in before if mid not in matches] if same < len(before) else []
        if not kept.ledger.apply(entries, changed, gone, config, event.seed):
            kept = None
    if kept is None:
        matches = {mid: m for mid, m in read.items() if all(seat[0] in wanted for seat in m[3])}
        games = [g for mid, m in matches.items() if (g := final_game(mid, m)) is not None]
        if len(games) > LEDGER_GAMES:
            return compute_standings(entries, games, config, seed=event.seed)
        kept = _Kept(StandingsLedger(entries, games, config, event.seed), matches, read, versions)
    kept.matches, kept.read, kept.versions = matches, read, versions
    _ledgers[key] = kept
    held = sum(len(x.ledger) for x in _ledgers.values())
    while len(_ledgers) > LEDGERS or (held > LEDGER_GAMES and len(_ledgers) > 1):
        held -= len(_ledgers.popitem(last=False)[1].ledger)
    return kept.ledger.standings()


_cache: MarkedCache[StandingsView] = MarkedCache(CACHED, CACHED_ROWS, lambda view: len(view.rows))


async def cached_standings(
    session: AsyncSession, event_id: str, stage_index: int | None = None, group: str | None = None
) -> StandingsView:
    """``event_standings``, from this process's cache when the event has not changed since it was
    computed. Only for a transaction that reads: in one that has changed the event, the mark read
    would name changes not yet committed."""
    return await _cache.get(
        session,
        event_id,
        (stage_index, group),
        lambda: event_standings(session, event_id, stage_index, group),
    )


def forget_cached() -> None:
    """Empty this process's standings cache and its kept ledgers."""
    _cache.clear()
    _ledgers.clear()
