"""A league's season (formats.md "Seasons"): one table across many events, made of each player's
places in them and a points table by place. Pure: the places come in, the table goes out.

- A place earns ``points[place - 1]`` (0 beyond the table's end). Players who share a place share
  the points of the places they cover, averaged: two players sharing 2nd of a ``[25, 18, 15]`` table
  get (18 + 15) / 2 = 16.5 each. Why: sharing a place must cost the pair together exactly what the
  two places are worth, whatever the table.
- With ``best_of`` N, a player's N best results count (the others are listed, not counted).
- Ties in the season table are decided by countback: more best places counted (more 1sts, then
  more 2nds, …); still equal, the players share the rank. ``decided_by`` says which (``points``,
  ``countback``) or is None for a shared rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Placing:
    """A player's place in one event, and how many players share it (1: alone)."""

    player_id: str
    name: str
    place: int
    shared: int = 1


@dataclass(frozen=True)
class EventPlaces:
    event_id: str
    placings: Sequence[Placing]


@dataclass(frozen=True)
class SeasonResult:
    event_id: str
    place: int
    points: float
    counted: bool


@dataclass(frozen=True)
class SeasonRow:
    rank: int
    player_id: str
    name: str
    points: float
    events: int
    results: list[SeasonResult]
    decided_by: str | None


def place_points(table: Sequence[float], place: int, shared: int = 1) -> float:
    """What ``shared`` players sharing ``place`` each earn: the average of the places they cover."""
    covered = [table[p - 1] if p - 1 < len(table) else 0.0 for p in range(place, place + shared)]
    return sum(covered) / len(covered)


def _countback(results: list[SeasonResult]) -> tuple[int, ...]:
    counted = [r.place for r in results if r.counted]
    top = max(counted, default=0)
    return tuple(counted.count(p) for p in range(1, top + 1))


def _cmp_key(row_points: float, countback: tuple[int, ...]) -> tuple[float, tuple[int, ...]]:
    return (-row_points, tuple(-c for c in countback))


def standings(
    table: Sequence[float], events: Sequence[EventPlaces], best_of: int | None = None
) -> list[SeasonRow]:
    """The season's table: every player placed in any event, by points, countback, then name."""
    results: dict[str, list[SeasonResult]] = {}
    names: dict[str, str] = {}
    for event in events:
        for p in event.placings:
            names[p.player_id] = p.name  # the latest event's name of the player
            results.setdefault(p.player_id, []).append(
                SeasonResult(event.event_id, p.place, place_points(table, p.place, p.shared), True)
            )
    unranked = []
    for player_id, its in results.items():
        if best_of is not None and len(its) > best_of:
            best = set(sorted(range(len(its)), key=lambda i: (-its[i].points, its[i].place, i))[:best_of])
            its = [SeasonResult(r.event_id, r.place, r.points, i in best) for i, r in enumerate(its)]
            results[player_id] = its
        points = round(sum(r.points for r in its if r.counted), 6)
        unranked.append((points, _countback(its), names[player_id], player_id))
    unranked.sort(key=lambda u: (*_cmp_key(u[0], u[1]), u[2], u[3]))
    rows: list[SeasonRow] = []
    for i, (points, countback, name, player_id) in enumerate(unranked):
        key = _cmp_key(points, countback)
        prev = unranked[i - 1] if i else None
        nxt = unranked[i + 1] if i + 1 < len(unranked) else None
        same_as_prev = prev is not None and _cmp_key(prev[0], prev[1]) == key
        rank = rows[-1].rank if same_as_prev else i + 1
        tied_points = any(o is not None and o[0] == points for o in (prev, nxt))
        shared = same_as_prev or (nxt is not None and _cmp_key(nxt[0], nxt[1]) == key)
        decided = None if shared else ("countback" if tied_points else "points")
        its = results[player_id]
        rows.append(SeasonRow(rank, player_id, name, points, len(its), its, decided))
    return rows
