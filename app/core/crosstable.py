"""The cross-table of a stage (api.md "Exports"): one row per entry in standings order, one cell per
round — whom the entry met, in which seat, and what it scored — and the points it took from each
opponent. Pure: the caller gives the standings rows, the games (seats in seat order) and the
stage's scoring.

Ruling: the CSV cell of a 2-seat game is the result sign (``+`` win, ``=`` draw, ``-`` loss), the
opponent's rank and the seat (``w`` first, ``b`` second) — ``+5w`` — as chess cross-tables write
it; a bye is ``+bye``; a game at a larger table is the place, then the opponents' ranks
(``1st:3/7/9``). A round the entry did not play is empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.core.scoring import GameResult, ScoringConfig, score_game
from app.core.standings import StandingRow


@dataclass(frozen=True)
class CrossCell:
    round: int
    seat: int | None  # None for a bye
    opponents: tuple[str, ...]
    result: str  # win, draw, loss, bye
    points: float
    place: int | None = None


@dataclass(frozen=True)
class CrossRow:
    rank: int
    entry_id: str
    name: str
    points: float
    cells: tuple[CrossCell, ...]
    versus: Mapping[str, float] = field(default_factory=dict)  # opponent → points scored against them


def crosstable(
    rows: Sequence[StandingRow], games: Sequence[GameResult], config: ScoringConfig
) -> list[CrossRow]:
    cells: dict[str, list[CrossCell]] = {r.entry_id: [] for r in rows}
    versus: dict[str, dict[str, float]] = {r.entry_id: {} for r in rows}
    for game in sorted(games, key=lambda g: (g.round, g.match_id)):
        scored = score_game(game, config)
        if scored is None:
            continue
        ids = [s.entry_id for s in game.seats]
        for i, e in enumerate(scored.entries):
            if e not in cells:
                continue
            others = tuple(x for x in ids if x != e)
            seat = None if game.outcome == "bye" else ids.index(e)
            place = scored.places[i] if scored.places is not None else None
            cells[e].append(CrossCell(game.round, seat, others, scored.results[i], scored.points[i], place))
            for o in others:
                versus[e][o] = versus[e].get(o, 0.0) + scored.points[i]
    return [
        CrossRow(r.rank, r.entry_id, r.name, r.points, tuple(cells[r.entry_id]), versus[r.entry_id])
        for r in rows
    ]


SIGN = {"win": "+", "draw": "=", "loss": "-"}


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def cell_text(cell: CrossCell, ranks: Mapping[str, int]) -> str:
    """A cell as the CSV writes it (see the module docstring)."""
    if cell.seat is None:
        return "+bye"
    if len(cell.opponents) == 1:
        return f"{SIGN.get(cell.result, '?')}{ranks.get(cell.opponents[0], 0)}{'wb'[cell.seat] if cell.seat < 2 else ''}"
    opp = "/".join(str(ranks.get(o, 0)) for o in cell.opponents)
    return f"{ordinal(cell.place) if cell.place else cell.result}:{opp}"
