"""Exports of an event (api.md "Exports"): the cross-table of a stage and its FIDE TRF-16 file.
The standings and the rounds are exported as CSV by their own routes, from their own reads."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.crosstable import CrossRow, crosstable
from app.core.errors import Conflict
from app.core.scoring import GameResult
from app.core.trf import TrfGame, TrfPlayer, planned_rounds, trf_document
from app.core.vocabulary import MatchStatus, Outcome, StageFormatName
from app.db.models import Entry, Event, Player, Round, Stage
from app.services.reads import (
    details_of,
    entries_by_id,
    game_result,
    get_event,
    stage_config,
    stage_matches,
    stage_settings,
    stage_standings,
)
from app.services.registry import registry_of
from app.services.standings import chosen_stage


@dataclass(frozen=True)
class CrossTableView:
    event: Event
    stage: Stage | None
    rounds: list[int]
    rows: list[CrossRow]


async def crosstable_view(session: AsyncSession, event_id: str, stage_index: int | None) -> CrossTableView:
    event = await get_event(session, event_id)
    stage = await chosen_stage(session, event_id, stage_index)
    if stage is None:
        return CrossTableView(event, None, [], [])
    rows = await stage_standings(session, event, stage)
    games: list[GameResult] = []
    rounds: list[int] = []
    for rnd, match in await stage_matches(session, stage):
        if rnd.number not in rounds:
            rounds.append(rnd.number)
        g = game_result(rnd, match)
        if g is not None:
            games.append(g)
    return CrossTableView(
        event, stage, rounds, crosstable(rows, games, stage_config(session, event, stage).scoring)
    )


async def trf_export(session: AsyncSession, event_id: str, stage_index: int | None) -> str:
    """The TRF-16 file of a 2-seat stage of a format that declares its TRF kind (``StageFormat.trf``:
    Swiss, round robin; app/core/trf.py)."""
    event = await get_event(session, event_id)
    stage = await chosen_stage(session, event_id, stage_index)
    if stage is None:
        raise Conflict("the event has not started: there is nothing to report")
    kind = registry_of(session).format_of(stage).trf
    if kind is None or stage_settings(stage).table_size != 2:
        raise Conflict(
            f"a TRF file reports a 2-seat Swiss or round robin; stage {stage.index} is a "
            f"{stage.format} of {stage_settings(stage).table_size} seats"
        )
    entries = await entries_by_id(session, event.id)
    order = list(details_of(stage).entries)
    start = {e: i + 1 for i, e in enumerate(order)}
    players = {
        p.id: p
        for p in (
            await session.execute(
                select(Player).join(Entry, Entry.player_id == Player.id).where(Entry.event_id == event.id)
            )
        ).scalars()
    }
    rows = {r.entry_id: r for r in await stage_standings(session, event, stage)}
    rounds = list(
        (
            await session.execute(select(Round).where(Round.stage_id == stage.id).order_by(Round.number))
        ).scalars()
    )
    games: dict[tuple[str, str], TrfGame] = {}
    for rnd, match in await stage_matches(session, stage):
        seats = sorted(match.seats, key=lambda s: s.seat)
        if match.status == MatchStatus.BYE:
            games[(rnd.id, seats[0].entry_id)] = TrfGame(None, "-", "U")
            continue
        if match.status != MatchStatus.CONFIRMED or match.outcome == Outcome.VOID or len(seats) != 2:
            continue
        for i, s in enumerate(seats):
            other = seats[1 - i]
            if match.outcome == Outcome.FORFEIT:
                code = "+" if s.place == 1 else "-"
            elif match.outcome in (Outcome.DRAW, Outcome.TIMEOUT) or s.place == other.place:
                code = "="
            else:
                code = "1" if s.place == 1 else "0"
            games[(rnd.id, s.entry_id)] = TrfGame(start.get(other.entry_id), "wb"[i], code)
    scoring = stage_config(session, event, stage).scoring
    out = []
    for e in order:
        entry = entries[e]
        player = players[entry.player_id]
        row = rows.get(e)
        out.append(
            TrfPlayer(
                start=start[e],
                name=entry.name,
                rating=entry.rating_at_entry,
                fide_id=player.external_id,
                points=row.points if row else 0.0,
                rank=row.rank if row else len(order),
                games=[games.get((r.id, e), TrfGame(None, "-", "Z")) for r in rounds],
            )
        )
    first = rounds[0].created_at if rounds else event.created_at
    last = rounds[-1].created_at if rounds else event.created_at
    points = (scoring.win, scoring.draw, scoring.loss, scoring.bye_points())
    settings = stage_settings(stage)
    groups = details_of(stage).groups
    sizes = list(Counter(groups.values()).values()) if groups else [len(order)]
    planned = planned_rounds(
        stage.format == StageFormatName.SWISS, settings.rounds, sizes, settings.double, len(rounds)
    )
    return trf_document(event.name, f"{first:%Y/%m/%d}", f"{last:%Y/%m/%d}", kind, planned, points, out)
