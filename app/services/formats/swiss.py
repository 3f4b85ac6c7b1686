"""Swiss stages (formats.md "Pairing and scheduling" — Swiss, 2 seats and N seats).

Round 1 is drawn from the event seed (or ordered by rating, ``first_round: rating``); every later
round pairs by the stage's standings, avoiding rematches where it can; the bye goes by the stage's
``bye`` rule: the lowest-ranked entry with the fewest byes (``fewest_byes``), or the entry lowest on
points and differential, fewer byes first among those tied there (``lowest_score``). A Swiss stage plays ``rounds`` rounds (default ceil(log2 N))
and takes late entries from its next round.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.lifecycle import swiss_rounds
from app.core.pairing.seats import allocate, balanced_by_default
from app.core.pairing.swiss import SwissPairing, first_round_order, pair_swiss
from app.core.pairing.swiss_inputs import swiss_entries, swiss_history
from app.core.pairing.tables import TableEntry, TablePairing, pair_tables
from app.core.vocabulary import EntryStatus, StageFormatName
from app.db.models import Event, Match, Round, Stage
from app.services.formats.base import Display, StageFormat
from app.services.formats.explanations import PairRow, SwissExplanation, TablesExplanation
from app.services.reads import (
    EntryRow,
    details_of,
    entry_rows,
    game_of,
    stage_played,
    stage_settings,
    stage_standings,
)
from app.services.rounds import Drawn


def _active_ids(stage: Stage, entries: dict[str, EntryRow]) -> list[str]:
    return [e for e in details_of(stage).entries if entries[e].status == EntryStatus.ACTIVE]


def _limit(stage: Stage) -> int:
    return swiss_rounds(stage_settings(stage).rounds, len(details_of(stage).entries))


class Swiss(StageFormat):
    name = StageFormatName.SWISS
    tiebreaks = ("buchholz", "sonneborn_berger", "wins")
    display = Display.TABLES
    trf = "Swiss System"
    label = "stage_swiss"
    late_entries = True

    def cannot_undo(self, stage: Stage, rounds: list[Round]) -> str | None:
        return None  # every Swiss round, the first too, is paired again from the standings

    def all_paired(self, stage: Stage, paired: int) -> bool:
        return paired >= _limit(stage)

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        limit = _limit(stage)
        if len(rounds) >= limit:
            raise Conflict(f"all {limit} rounds of this Swiss stage are paired; advance to close the stage")
        explain: dict[str, Any] = {}
        tables = await _swiss_tables(session, event, stage, len(rounds), explain)
        # a 2-seat round says whether it balanced seats (SwissExplanation); an N-seat one does not
        return Drawn(tables, explain, seat_balance=explain.get("seat_balance") is True)

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        limit = _limit(stage)
        if len(rounds) < limit:
            return f"{len(rounds)} of {limit} Swiss rounds are paired"
        return None


async def _swiss_tables(
    session: AsyncSession, event: Event, stage: Stage, played: int, explain: dict[str, Any]
) -> list[list[str]]:
    """The next Swiss round; ``explain`` receives why (each pair's cost parts, the bye, repeats)."""
    settings = stage_settings(stage)
    # read once, for the standings and the pairing both
    entries = await entry_rows(session, event.id)
    active = _active_ids(stage, entries)
    matches = await stage_played(session, stage)
    points: dict[str, float] = {}
    differentials: dict[str, float] = {}
    if played == 0:
        if settings.first_round == "rating":
            order = sorted(active, key=lambda e: (-(entries[e].rating_at_entry or 0.0), e))
        else:
            order = first_round_order(active, event.seed, f"stage:{stage.index}:round:1")
    else:
        rows = await stage_standings(session, event, stage, played=matches, entries=entries)
        points = {r.entry_id: r.points for r in rows}
        differentials = {r.entry_id: r.differential or 0.0 for r in rows}
        playing = set(active)
        order = [r.entry_id for r in rows if r.entry_id in playing]
    history = swiss_history(active, matches, event.forbidden_pairs or [])
    clubs = {e: entries[e].club for e in active}
    avoid_club = settings.avoid_same_club
    if avoid_club is None:
        avoid_club = any(c is not None for c in clubs.values())
    if settings.table_size != 2:
        game = await game_of(session, event)
        seated_tables = pair_tables(
            [
                TableEntry(e, points.get(e, 0.0), history.met[e], frozenset(history.forbidden[e]), clubs[e])
                for e in order
            ],
            settings.table_size,
            min_seats=game.min_seats,
            avoid_same_club=avoid_club,
        )
        explain.update(_tables_explanation(seated_tables, avoid_club))
        return [t.entries for t in seated_tables.tables]
    balance = settings.seat_balance
    if balance is None:
        balance = balanced_by_default(event.game_key)
    pairing = pair_swiss(
        swiss_entries(
            order, history, points=points, differentials=differentials, clubs=clubs, seat_balance=balance
        ),
        avoid_rematches=settings.avoid_rematches,
        pairing=settings.pairing,
        avoid_same_club=avoid_club,
        bye=settings.bye,
    )
    tables, described = _seated(pairing, history.seats if balance else None)
    swiss: SwissExplanation = {
        "method": pairing.method,
        "total_cost": pairing.total_cost,
        "rematches": pairing.rematches,
        "avoid_same_club": avoid_club,
        "seat_balance": balance,
        "pairs": described,
        "bye": None
        if pairing.bye is None
        else {
            "entry": pairing.bye.entry,
            "byes_before": pairing.bye.byes_before,
            "rule": settings.bye,
        },
        "notes": list(pairing.notes),
    }
    explain.update(swiss)
    return tables


def _seated(
    pairing: SwissPairing, seats: dict[str, list[int]] | None
) -> tuple[list[list[str]], list[PairRow]]:
    """The round's tables (seats allocated by history when ``seats`` is given, else the higher-ranked
    entry first; the bye last) and each pair's reasons."""
    described: list[PairRow] = []
    tables = []
    for t, p in enumerate(pairing.pairs, start=1):
        row: PairRow = {
            "entries": [p.first, p.second],
            "score_gap": p.cost.score_gap,
            "rank_distance": p.cost.rank_distance,
            "rematch": p.cost.rematch,
            "forbidden": p.cost.forbidden,
            "same_club": p.cost.same_club,
            "club_cost": p.cost.club_cost,
            "seat_clash": p.cost.seat_clash,
            "seat_cost": p.cost.seat_cost,
            "cost": p.cost.total,
        }
        if seats is not None:
            seated = allocate(p.first, p.second, seats[p.first], seats[p.second], t)
            tables.append([seated.first, seated.second])
            row["seats"] = {"first": seated.first, "rule": seated.rule, "reason": seated.reason}
        else:
            tables.append([p.first, p.second])
        described.append(row)
    if pairing.bye is not None:
        tables.append([pairing.bye.entry])
    return tables, described


def _tables_explanation(seated: TablePairing, avoid_club: bool) -> TablesExplanation:
    return {
        "method": "tables",
        "total_repeat_cost": seated.total_repeat_cost,
        "avoid_same_club": avoid_club,
        "tables": [
            {
                "entries": t.entries,
                "repeat_cost": t.repeat_cost,
                "forbidden_pairs": t.forbidden_pairs,
                "same_club_pairs": t.same_club_pairs,
            }
            for t in seated.tables
        ],
    }
